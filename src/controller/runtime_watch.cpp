#include "controller/runtime_watch.h"

#include <algorithm>
#include <unordered_set>

#include "model/error.h"
#include "planner/reasons.h"

namespace fitscale {

std::string overrun_text(const Overrun& o) {
  std::string text = "job " + o.ns + "/" + o.job + " has run " + planner::short_duration(o.ran) +
                     ", past its worst case of " + planner::short_duration(o.runtime) + " (" +
                     o.runtime_source + "); ";
  if (o.action == MaxRuntimeAction::Terminate)
    return text + "fitscale deletes its pods (maxRuntimeAction: terminate)";
  return text + "its nodes stay committed for another " + planner::short_duration(o.runtime) +
         " (maxRuntimeAction: alert)";
}

std::vector<Overrun> RuntimeWatch::due(const Snapshot& snapshot, const Budgets& budgets, Time now) {
  next_due_ = kNever;
  ++scan_;
  // Looked up once per namespace: most pods are within their worst case, and this runs on
  // every planned loop.
  std::map<std::string_view, NamespaceBudget, std::less<>> by_ns;
  std::unordered_set<std::string_view> managed;
  bool managed_known = false;
  std::map<std::string, Overrun> jobs;  // by "ns/job": deterministic order
  std::string pod_id;
  for (const Pod& p : snapshot.pods) {
    // Batch pods only: a service's pod has no worst case to run past.
    if (p.node_name.empty() || p.finished() || p.terminating || !p.is_batch() || p.is_daemon() ||
        p.is_mirror())
      continue;
    std::optional<Seconds> runtime;
    const char* source = "activeDeadlineSeconds";
    try {
      runtime = p.declared_max_runtime();
      if (runtime && !p.active_deadline_s) source = "fitscale.io/max-runtime";
    } catch (const InputError&) {
      continue;  // the planner reports a malformed annotation; nothing to count it from
    }
    auto b = by_ns.find(p.ns);
    if (b == by_ns.end()) b = by_ns.emplace(p.ns, budgets.for_namespace(p.ns)).first;
    if (!runtime) {
      runtime = b->second.max_runtime;
      source = "the namespace's maxRuntime";
    }
    if (!runtime || *runtime <= 0) continue;
    const Time start = p.started != 0 ? p.started : p.created;
    const Seconds ran = now - start;
    if (ran < *runtime) {
      next_due_ = std::min(next_due_, start + *runtime);
      continue;
    }
    const std::int64_t period = ran / *runtime;
    next_due_ = std::min(next_due_, start + (period + 1) * *runtime);
    pod_id = p.uid.empty() ? p.key() : p.uid;
    const MaxRuntimeAction action = b->second.max_runtime_action.value_or(MaxRuntimeAction::Alert);
    auto seen = pods_.find(pod_id);
    if (seen != pods_.end()) {
      seen->second.scan = scan_;
      if (auto j = jobs_.find(seen->second.job); j != jobs_.end()) j->second.scan = scan_;
      // Said already in this period; a pod to terminate is looked at until it is gone.
      if (seen->second.period >= period && action != MaxRuntimeAction::Terminate) continue;
    }
    // Only what runs on fitscale's nodes is committed to a budget.
    if (!managed_known) {
      managed_known = true;
      for (const Node& n : snapshot.nodes) {
        if (n.managed) managed.insert(n.name);
      }
    }
    if (managed.count(p.node_name) == 0) continue;
    Seen& mine = pods_[pod_id];
    mine.scan = scan_;
    const std::string job = p.job_key();
    mine.job = p.ns + "/" + job;
    Overrun& o = jobs[mine.job];
    if (o.pods.empty()) {
      o.ns = p.ns;
      o.job = job;
      o.runtime = *runtime;
      o.runtime_source = source;
      o.action = action;
    }
    o.pods.push_back(p.key());
    o.ran = std::max(o.ran, ran);
    o.period = std::max(o.period, period);
    mine.period = std::max(mine.period, period);
  }
  std::vector<Overrun> out;
  for (auto& [key, o] : jobs) {
    Seen& j = jobs_[key];
    j.scan = scan_;
    o.new_in_period = j.period < o.period;
    j.period = std::max(j.period, o.period);
    out.push_back(std::move(o));
  }
  // Jobs and pods no longer past their worst case (ended, or restarted) are forgotten.
  std::erase_if(jobs_, [&](const auto& kv) { return kv.second.scan != scan_; });
  std::erase_if(pods_, [&](const auto& kv) { return kv.second.scan != scan_; });
  return out;
}

}  // namespace fitscale
