#pragma once
// The planner's side of the baselines `fitscale simulate` compares fitscale against
// (`policy: cluster-autoscaler`, `policy: karpenter`; docs/simulator.md, "Baselines"). They are
// approximations: the same planner and controller with the options below, plus the evictions
// the simulator makes for them (sim/baseline_disruption.h), which fitscale never makes.
#include "model/config.h"
#include "planner/plan.h"

namespace fitscale {

// `base` as the baseline `kind` decides (Fitscale: unchanged).
// - cluster-autoscaler: node groups of one instance type picked by the least-waste expander;
//   no dollar budgets (nothing gated or refused for cost); gangs are pods like any other; a node
//   goes after 10 minutes unneeded (--scale-down-unneeded-time), never sooner than 10 minutes
//   after its launch (--scale-down-delay-after-add, per node here).
// - karpenter: the cheapest offering that fits (groupless); no budgets; no gangs; an empty node
//   goes at once (consolidateAfter 0s), whatever its age.
Policy with_baseline(Policy base, PolicyKind kind);

}  // namespace fitscale
