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
  // Looked up once per namespace: most pods are within their worst case, and this runs on
  // every planned loop.
  std::map<std::string_view, NamespaceBudget, std::less<>> by_ns;
  std::unordered_set<std::string_view> managed;
  bool managed_known = false;
  std::map<std::string, Overrun> jobs;  // by "ns/job": deterministic order
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
    // Only what runs on fitscale's nodes is committed to a budget.
    if (!managed_known) {
      managed_known = true;
      for (const Node& n : snapshot.nodes) {
        if (n.managed) managed.insert(n.name);
      }
    }
    if (managed.count(p.node_name) == 0) continue;
    const std::int64_t period = ran / *runtime;
    next_due_ = std::min(next_due_, start + (period + 1) * *runtime);
    const std::string job = p.job_key();
    Overrun& o = jobs[p.ns + "/" + job];
    if (o.pods.empty()) {
      o.ns = p.ns;
      o.job = job;
      o.runtime = *runtime;
      o.runtime_source = source;
      o.action = b->second.max_runtime_action.value_or(MaxRuntimeAction::Alert);
    }
    o.pods.push_back(p.key());
    o.ran = std::max(o.ran, ran);
    o.period = std::max(o.period, period);
  }
  std::vector<Overrun> out;
  std::map<std::string, std::int64_t> reported;
  for (auto& [key, o] : jobs) {
    auto was = reported_.find(key);
    o.new_in_period = was == reported_.end() || was->second < o.period;
    reported.emplace(key, std::max(o.period, was == reported_.end() ? 0 : was->second));
    if (o.new_in_period || o.action == MaxRuntimeAction::Terminate) out.push_back(std::move(o));
  }
  // Jobs no longer past their worst case (ended, or restarted) are forgotten.
  reported_ = std::move(reported);
  return out;
}

}  // namespace fitscale
