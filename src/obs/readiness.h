#pragma once
// When a fitscale replica should receive traffic (/readyz): its informers have synced and, if it
// is the leader, its last reconcile loop finished within three intervals or a loop is in
// progress (ready means working, not idle: a long loop over a burst is work), unless that loop
// has run for more than max(10 intervals, 300 s) (a wedged leader turns unready, so a rollout
// or an alert notices). A standby replica is ready once synced.
//
// It is a Recorder so the controller's loop_finished() feeds it; the clock is injected (the CLI
// passes the wall clock), so tests drive it without sleeping.
#include <atomic>
#include <functional>
#include <string>

#include "model/time.h"
#include "obs/recorder.h"

namespace fitscale::obs {

class Readiness final : public Recorder {
 public:
  Readiness(Seconds interval_s, std::function<Time()> now);

  void set_synced(bool synced) { synced_ = synced; }
  // A new leader gets three intervals from its election to finish its first loop.
  void set_leader(bool leader);
  bool ready() const;
  // "ready", "informers not synced", "last loop 95s ago (> 3 x 30s)", "ready (loop running for
  // 40s)", "loop running for 400s (> 300s)"
  std::string explain() const;
  // The caller is about to run a loop; loop_finished() ends it.
  void loop_started() { loop_started_ = now_(); }
  // A loop that threw: no loop in progress, and none finished either.
  void loop_failed() { loop_started_ = 0; }

  void action(const ActionRecord&) override {}
  void planned(const Snapshot&, const Plan&, const LoopStats&) override {}
  void loop_finished(const LoopStats& stats) override;

 private:
  Seconds interval_s_;
  std::function<Time()> now_;
  std::atomic<bool> synced_{false};
  std::atomic<bool> leader_{false};
  std::atomic<Time> last_loop_{0};
  std::atomic<Time> leader_since_{0};
  std::atomic<Time> loop_started_{0};  // 0: no loop in progress
};

}  // namespace fitscale::obs
