#include "obs/readiness.h"

#include <algorithm>

namespace fitscale::obs {

Readiness::Readiness(Seconds interval_s, std::function<Time()> now)
    : interval_s_(interval_s > 0 ? interval_s : 1), now_(std::move(now)) {}

void Readiness::loop_finished(const LoopStats& stats) {
  // The loop's own time when set, else now: either way the clock the controller runs on.
  last_loop_ = stats.at != 0 ? stats.at : now_();
  loop_started_ = 0;
}

void Readiness::set_leader(bool leader) {
  if (leader && !leader_.exchange(true)) leader_since_ = now_();
  if (!leader) leader_ = false;
}

std::string Readiness::explain() const {
  if (!synced_) return "informers not synced";
  if (!leader_) return "ready (standby)";
  Time last = last_loop_;
  const Time since = leader_since_;
  if (since > last) last = since;
  const Time now = now_();
  if (const Time started = loop_started_; started != 0) {
    const Seconds running = now - started;
    const Seconds wedged_after = std::max<Seconds>(10 * interval_s_, 300);
    if (running > wedged_after) {
      return "loop running for " + std::to_string(running) + "s (> " +
             std::to_string(wedged_after) + "s)";
    }
    return "ready (loop running for " + std::to_string(running) + "s)";
  }
  if (now - last > 3 * interval_s_) {
    return "last loop " + std::to_string(now - last) + "s ago (> 3 x " +
           std::to_string(interval_s_) + "s)";
  }
  return "ready";
}

bool Readiness::ready() const {
  const std::string e = explain();
  return e.rfind("ready", 0) == 0;
}

}  // namespace fitscale::obs
