#pragma once
// Kubernetes Events off the reconcile loop's critical path: record() only queues (bounded; what
// does not fit is dropped and counted, as client-go's broadcaster drops when its channel is full),
// and one worker thread correlates (EventCorrelator: aggregation, dedup, spam filter) and writes
// with a rate limit: POST for a new event, PATCH of count/lastTimestamp/message for a repeat.
// A loop that reports on 10,000 pods therefore costs 10,000 queue pushes, not 10,000 requests.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

#include "controller/interfaces.h"
#include "kube/api_client.h"
#include "kube/background_writer.h"
#include "kube/event_correlator.h"

namespace fitscale {

struct EventRecorderOptions {
  std::string component = "fitscale";  // source.component, reportingComponent
  std::string instance;                // reportingInstance
  CorrelatorOptions correlator;
  std::size_t queue_limit = 1000;  // client-go's broadcaster queues at most 1,000 events
  // Event writes per second, and how many may go at once after a quiet spell: events must not
  // crowd out the controller's own writes or the API server's other clients.
  double writes_per_second = 20;
  double write_burst = 100;
  std::size_t message_limit = 1024;  // bytes of message kept (kube-apiserver accepts 1 KiB)
  ApiClientOptions client;
};

// Where events went; a metric and tests read them.
struct EventRecorderStats {
  std::atomic<std::uint64_t> queued{0};
  std::atomic<std::uint64_t> created{0};       // POST
  std::atomic<std::uint64_t> updated{0};       // PATCH of an existing event
  std::atomic<std::uint64_t> dropped_full{0};  // the queue was full
  std::atomic<std::uint64_t> dropped_spam{0};  // the spam filter's token bucket was empty
  std::atomic<std::uint64_t> refused{0};       // the write gate said no (not the leader)
  std::atomic<std::uint64_t> failed{0};        // the API server refused or did not answer
};

class EventRecorder {
 public:
  EventRecorder(const KubeConfig& config, const Clock& clock, EventRecorderOptions options);
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Set before start(). `gate`: asked before every write (a replica that lost its lease stops
  // at once). `monotonic`: seconds that never jump, for the rate limit (default: the Clock's
  // monotonic reading; tests set their own). `outcome`: called with "created", "updated",
  // "dropped_queue_full", "dropped_spam", "refused", "failed" for each event (a metric). `warn`: a
  // failed write.
  void set_gate(std::function<bool()> gate) { gate_ = std::move(gate); }
  void set_monotonic(std::function<double()> monotonic) { monotonic_ = std::move(monotonic); }
  void set_outcome(std::function<void(const char*)> outcome) { outcome_ = std::move(outcome); }
  void set_warn(std::function<void(const std::string&)> warn) { warn_ = std::move(warn); }

  void start();
  // Stops the worker after the write in progress; what is still queued is dropped.
  void stop();

  // Any thread, never waits for the network. false: dropped, the queue is full.
  bool record(const ObjectRef& about, const std::string& type, const std::string& reason,
              const std::string& message);
  // Waits until everything queued so far was handled (tests, shutdown). false: deadline passed.
  bool flush(std::chrono::milliseconds deadline);
  std::size_t queued() const;
  const EventRecorderStats& stats() const { return stats_; }

 private:
  struct Pending {
    KubeEvent event;
    Time at = 0;
  };
  void run();
  void send(Pending p);
  bool write(const KubeEvent& e, bool update, HttpResponse& r);
  void count(std::atomic<std::uint64_t>& counter, const char* outcome);

  const Clock& clock_;
  EventRecorderOptions options_;
  ApiClient client_;            // used by the worker thread only
  EventCorrelator correlator_;  // used by the worker thread only
  std::function<bool()> gate_;
  std::function<double()> monotonic_;
  std::function<void(const char*)> outcome_;
  std::function<void(const std::string&)> warn_;
  EventRecorderStats stats_;

  // The worker thread; its lock guards what is queued below (mutable: queued() locks it).
  mutable BackgroundWriter bg_;
  std::deque<Pending> queue_;
  bool busy_ = false;
};

}  // namespace fitscale
