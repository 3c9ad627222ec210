#include "obs/log_recorder.h"

#include <cstdio>

#include "planner/plan.h"

namespace fitscale::obs {

namespace {

// Bounds the "already logged" memory on a cluster that churns through millions of pods.
constexpr std::size_t kMaxRemembered = 100'000;

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", s);
  return buf;
}

}  // namespace

LogLevel level_of(ActionKind kind) {
  switch (kind) {
    case ActionKind::Launch:
    case ActionKind::Remove:
    case ActionKind::Evict:
    case ActionKind::Keep:
    case ActionKind::Ungate:
    case ActionKind::Reclaim:
      return LogLevel::Info;
    case ActionKind::LaunchFailed:
    case ActionKind::Refuse:
    case ActionKind::Unschedulable:
    case ActionKind::Interrupted:
    case ActionKind::EvictBlocked:
    case ActionKind::MaxRuntimeExceeded:
      return LogLevel::Warn;
  }
  return LogLevel::Info;
}

void LogRecorder::action(const ActionRecord& r) {
  const LogLevel level = level_of(r.kind);
  if (!logger_.enabled(level)) return;
  if (r.kind == ActionKind::Unschedulable) {
    auto it = unschedulable_reason_.find(r.subject);
    if (it != unschedulable_reason_.end() && it->second == r.reason) return;
    if (unschedulable_reason_.size() >= kMaxRemembered) unschedulable_reason_.clear();
    unschedulable_reason_[r.subject] = r.reason;
  } else if (!unschedulable_reason_.empty()) {
    // Once the pod is launched for (or refused), a later unschedulable spell is news again.
    unschedulable_reason_.erase(r.subject);
  }
  LogFields fields;
  fields.reserve(r.fields.size() + 3);
  fields.emplace_back("action", to_string(r.kind));
  fields.emplace_back("subject", r.subject);
  fields.emplace_back("reason", r.reason);
  for (const auto& [k, v] : r.fields) fields.emplace_back(k, v);
  std::string message = std::string(to_string(r.kind)) + " " + r.subject;
  if (!r.reason.empty()) message += ": " + r.reason;
  logger_.log(level, message, fields);
}

void LogRecorder::planned(const Snapshot& snapshot, const Plan& plan, const LoopStats& stats) {
  if (!logger_.enabled(LogLevel::Debug)) return;
  int launches = 0;
  for (const auto& l : plan.launch) launches += l.count;
  logger_.debug("plan", {{"nodes", std::to_string(snapshot.nodes.size())},
                         {"pods", std::to_string(snapshot.pods.size())},
                         {"launch", std::to_string(launches)},
                         {"remove", std::to_string(plan.remove.size())},
                         {"unschedulable", std::to_string(plan.unschedulable.size())},
                         {"usd_per_hour", seconds(plan.usd_per_hour)},
                         {"plan_s", seconds(stats.plan_s)}});
}

void LogRecorder::loop_finished(const LoopStats& stats) {
  if (!stats.skipped) {
    // One line per planned loop at info: what it did and how long it took, so a slow loop is
    // seen without debug logging (issue 20). Per-pod work is queued, not done, in the loop.
    logger_.info("loop", {{"pending", std::to_string(stats.pods_pending)},
                          {"launched", std::to_string(stats.launched)},
                          {"events_queued", std::to_string(stats.events)},
                          {"observe_s", seconds(stats.observe_s)},
                          {"plan_s", seconds(stats.plan_s)},
                          {"act_s", seconds(stats.act_s)},
                          {"record_s", seconds(stats.record_s)},
                          {"total_s", seconds(stats.total_s)}});
    return;
  }
  if (!logger_.enabled(LogLevel::Debug)) return;
  logger_.debug("loop finished", {{"skipped", stats.skipped ? "true" : "false"},
                                  {"observe_s", seconds(stats.observe_s)},
                                  {"plan_s", seconds(stats.plan_s)},
                                  {"act_s", seconds(stats.act_s)},
                                  {"record_s", seconds(stats.record_s)},
                                  {"total_s", seconds(stats.total_s)}});
}

}  // namespace fitscale::obs
