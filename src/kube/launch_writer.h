#pragma once
// Launch objects (launches.fitscale.io) off the reconcile loop's critical path, as the
// EventRecorder does for Events: launch_changed() only stores the launch's latest record under
// its name and queues the name once, so a burst of 10,000 launches costs 10,000 map writes and
// the writes that reach the API server are one per launch and change, coalesced (a launch that
// was Launched, Registered and Initialized before its turn is written once). One worker thread:
//   - lists the Launch objects once per term (what an earlier leader wrote: their conditions'
//     transition times are kept, an unchanged status is not written again);
//   - creates a missing object (POST), then writes its status (merge patch of /status);
//   - deletes a removed launch's object `retention` after its Removed condition
//     (launch_lifecycle.h: launch_expires_at), also those an earlier leader left;
//   - writes only while the gate is open (the leader); when it closes it forgets everything,
//     and the next term lists again;
//   - with the CRD not installed (404): says so once, keeps the records, looks again every
//     `absent_recheck_s`, and writes them all once it is there.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "controller/interfaces.h"
#include "controller/launch_lifecycle.h"
#include "kube/api_client.h"
#include "kube/background_writer.h"

namespace fitscale {

struct LaunchWriterOptions {
  Seconds retention = kRemovedLaunchRetention;
  // Requests per second, and how many may go at once after a quiet spell: Launch objects must
  // not crowd out the controller's own writes.
  double writes_per_second = 50;
  double write_burst = 200;
  Seconds absent_recheck_s = 15;   // the CRD was not installed: look again this often
  Seconds failure_recheck_s = 10;  // a write failed: retried after this long
  std::size_t limit = 200000;      // launches kept to write; more are dropped (counted)
  ApiClientOptions client;
};

struct LaunchWriterStats {
  std::atomic<std::uint64_t> changed{0};  // launch_changed() calls
  std::atomic<std::uint64_t> created{0};
  std::atomic<std::uint64_t> status_written{0};
  std::atomic<std::uint64_t> unchanged{0};  // the object already said so
  std::atomic<std::uint64_t> deleted{0};
  std::atomic<std::uint64_t> dropped{0};  // over `limit`
  std::atomic<std::uint64_t> refused{0};  // the gate was closed
  std::atomic<std::uint64_t> failed{0};
};

class LaunchWriter : public LaunchLog {
 public:
  LaunchWriter(const KubeConfig& config, const Clock& clock, LaunchWriterOptions options);
  ~LaunchWriter() override;
  LaunchWriter(const LaunchWriter&) = delete;
  LaunchWriter& operator=(const LaunchWriter&) = delete;

  // Set before start(). `gate`: asked before every write (only the leader writes). `monotonic`:
  // for the rate limit (default: the Clock's). `warn` / `info`: log lines (the CRD missing,
  // failures: the first and every hundredth). `outcome`: "created", "status_written",
  // "unchanged", "deleted", "dropped", "refused", "failed" (a metric).
  void set_gate(std::function<bool()> gate) { gate_ = std::move(gate); }
  void set_monotonic(std::function<double()> monotonic) { monotonic_ = std::move(monotonic); }
  void set_warn(std::function<void(const std::string&)> warn) { warn_ = std::move(warn); }
  void set_info(std::function<void(const std::string&)> info) { info_ = std::move(info); }
  void set_outcome(std::function<void(const char*)> outcome) { outcome_ = std::move(outcome); }

  void start();
  void stop();  // after the write in progress

  void launch_changed(const LaunchRecord& launch) override;
  // Waits until nothing is queued (tests, shutdown). false: the deadline passed.
  bool flush(std::chrono::milliseconds deadline);
  const LaunchWriterStats& stats() const { return stats_; }

 private:
  // What the worker knows of an object in the cluster.
  struct Known {
    bool exists = false;
    std::optional<LaunchStatus> status;  // nullopt: exists, status not read
  };
  void run();
  bool list();                 // worker: the term's first look; false: not now
  void write(LaunchRecord r);  // worker
  void expire(Time now);       // worker
  void retry_later(LaunchRecord r);
  void count(std::atomic<std::uint64_t>& counter, const char* outcome);
  void failure(const std::string& what, const HttpResponse& r);

  const Clock& clock_;
  LaunchWriterOptions options_;
  ApiClient client_;  // worker only
  std::function<bool()> gate_;
  std::function<double()> monotonic_;
  std::function<void(const std::string&)> warn_;
  std::function<void(const std::string&)> info_;
  std::function<void(const char*)> outcome_;
  LaunchWriterStats stats_;

  // Worker only.
  bool listed_ = false;
  bool absent_ = false;
  bool absent_said_ = false;
  Time look_again_at_ = 0;
  std::unordered_map<std::string, Known> known_;
  std::multimap<Time, std::string> expiries_;            // removed objects' deletion times
  std::unordered_map<std::string, LaunchRecord> retry_;  // not written yet (absent CRD, failure)
  Time retry_at_ = 0;

  // The worker thread; its lock guards what is queued below (mutable: queued() locks it).
  mutable BackgroundWriter bg_;
  std::unordered_map<std::string, LaunchRecord> pending_;  // name -> latest record
  std::deque<std::string> order_;                          // names in pending_, oldest first
  bool busy_ = false;
};

}  // namespace fitscale
