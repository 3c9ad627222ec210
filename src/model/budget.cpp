#include "model/budget.h"

namespace fitscale {

namespace {
// A namespace key wins over the default key; either may be unset (= no cap).
template <typename T>
std::optional<T> either(const std::optional<T>& own, const std::optional<T>& fallback) {
  return own ? own : fallback;
}
}  // namespace

NamespaceBudget Budgets::for_namespace(const std::string& ns) const {
  auto it = namespaces.find(ns);
  if (it == namespaces.end()) return defaults;
  const NamespaceBudget& own = it->second;
  NamespaceBudget out;
  out.usd_per_hour = either(own.usd_per_hour, defaults.usd_per_hour);
  out.usd_per_day = either(own.usd_per_day, defaults.usd_per_day);
  out.usd_per_month = either(own.usd_per_month, defaults.usd_per_month);
  out.usd_per_job = either(own.usd_per_job, defaults.usd_per_job);
  out.max_runtime = either(own.max_runtime, defaults.max_runtime);
  out.max_runtime_action = either(own.max_runtime_action, defaults.max_runtime_action);
  return out;
}

const char* to_string(MaxRuntimeAction a) {
  return a == MaxRuntimeAction::Terminate ? "terminate" : "alert";
}

// Why these numbers: docs/budgets.md ("Safe defaults"). In short: a 10,000-GPU job breaks the
// GPU cap (4,096) and usdPerJob ($5,000 against ~$220,000 at spot for 24h); an 8-GPU V100 job
// on on-demand p3.16xlarge costs $24.48/h x 24h = $587.52 and passes everything; a replay of
// the Philly trace (peaks of ~1,150 GPUs in philly-week, ~2,000 in the full trace, busiest team
// ~$4,300/day at spot) stays below every cap.
Budgets safe_default_budgets() {
  Budgets b;
  b.cluster.usd_per_hour = 5000;
  b.cluster.gpus = 4096;
  b.cluster.nodes = 2000;
  b.defaults.usd_per_hour = 1000;
  b.defaults.usd_per_day = 20000;
  b.defaults.usd_per_month = 300000;
  b.defaults.usd_per_job = 5000;
  b.defaults.max_runtime = 24 * 3600;
  return b;
}

}  // namespace fitscale
