#pragma once
// Keeps fitscale's Prometheus metrics (docs/operating.md, "Metrics") up to date from what the
// controller reports: actions (launches, failures, removals, refusals, interruptions) and, after
// every planned loop, the view and the plan (pending pods, nodes, committed $/h, spend, budgets,
// OpenCost node prices).
#include <map>
#include <set>
#include <string>

#include "model/budget.h"
#include "model/catalog.h"
#include "obs/metrics_registry.h"
#include "obs/recorder.h"

namespace fitscale::obs {

struct MetricsOptions {
  Budgets budgets = safe_default_budgets();  // for budget_remaining; the policy's budgets
  const Catalog* catalog = nullptr;  // optional: prices and sizes of nodes fitscale did not launch
  std::string region = "us-east-1";  // when a node carries no topology.kubernetes.io/region label
};

class MetricsRecorder final : public Recorder {
 public:
  // Declares every fitscale metric on `registry` (once per registry).
  MetricsRecorder(MetricsRegistry& registry, MetricsOptions options);

  void action(const ActionRecord& record) override;
  void planned(const Snapshot& snapshot, const Plan& plan, const LoopStats& stats) override;
  void loop_finished(const LoopStats& stats) override;
  // The budgets that apply now (`fitscale run`: the config file's with the Budget objects on
  // top): the cap and remaining gauges follow them from the next planned loop.
  void set_budgets(const Budgets& budgets) { options_.budgets = budgets; }

 private:
  void update_nodes(const Snapshot& snapshot);
  void update_cost(const Snapshot& snapshot);

  MetricsOptions options_;
  // Loop.
  Family loop_duration_, loop_phase_duration_, loops_, last_loop_, pending_, unschedulable_,
      plan_launches_, plan_usd_;
  // Nodes.
  Family nodes_, launches_, launch_failures_, removals_, interruptions_, never_registered_,
      evictions_;
  // Cost.
  Family committed_, spend_, budget_used_, budget_cap_, budget_remaining_, refusals_;
  // OpenCost names.
  Family oc_total_, oc_cpu_, oc_ram_, oc_gpu_, oc_gpu_count_, oc_is_spot_;

  // Last month-to-date spend seen per namespace: the spend counter adds the increase, so it only
  // goes up even when the ledger's month rolls over.
  std::map<std::string, Micros, std::less<>> last_month_spend_;
  bool spend_baseline_taken_ = false;
};

// The bounded label value for a removal / refusal: fields["kind"] when the controller set it,
// else the first known word of the reason, else "other".
std::string removal_reason_label(const ActionRecord& r);
std::string refusal_reason_label(const ActionRecord& r);

}  // namespace fitscale::obs
