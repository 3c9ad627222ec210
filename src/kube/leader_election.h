#pragma once
// Leader election on a coordination.k8s.io/v1 Lease, so two replicas never both act: acquire the
// lease when it is free or expired, renew it while leading, and stop leading the moment a renewal
// shows someone else holds it (409 on our PUT = we lost the race). Writes carry the
// resourceVersion we read (optimistic concurrency). Releasing clears the holder so a standby
// replica takes over at its next retry instead of waiting out the lease.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "controller/interfaces.h"
#include "kube/api_client.h"
#include "obs/logger.h"

namespace fitscale {

struct LeaseOptions {
  std::string ns = "kube-system";
  std::string name = "fitscale";
  std::string identity;  // hostname + pid, from cli/
  Seconds duration_s = 15;
  std::chrono::milliseconds renew_period{5000};
  std::chrono::milliseconds retry_period{2000};
  // Derived from duration_s the way the defaults are (15 s -> renew 5 s, retry 2 s).
  static LeaseOptions for_duration(Seconds duration_s);
};

class LeaderElector {
 public:
  // `log` must outlive the elector (its thread writes to it).
  LeaderElector(KubeConfig config, const Clock& clock, const obs::Logger& log, LeaseOptions options,
                ApiClientOptions client_options = {});
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Runs acquire/renew on a thread; `on_change(true|false)` is called on every transition.
  void start(std::function<void(bool)> on_change = {});
  // Stops the thread and, when leading, releases the lease.
  void stop();
  bool is_leader() const { return leader_.load(); }

  // One round (what the thread does every period): returns whether we hold the lease now.
  bool try_acquire_or_renew();
  // Clears the holder if it is us. Returns true when the lease is ours no more.
  bool release();

 private:
  void set_leader(bool leader, bool released = false);
  std::string lease_path() const;

  ApiClient client_;
  const Clock& clock_;
  const obs::Logger& log_;
  LeaseOptions options_;
  std::atomic<bool> leader_{false};
  std::function<void(bool)> on_change_;
  // What we last saw of the lease: a record that does not change for a lease duration is
  // expired even when the holder's clock disagrees with ours.
  std::string observed_version_;
  Time observed_at_ = 0;
  Time last_renew_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// Lease times are metav1.MicroTime: RFC 3339 with six fraction digits.
std::string format_micro_time(Time t);

}  // namespace fitscale
