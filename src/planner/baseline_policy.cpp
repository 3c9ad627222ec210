#include "planner/baseline_policy.h"

namespace fitscale {

namespace {
constexpr Seconds kCaUnneeded = 600;       // --scale-down-unneeded-time 10m
constexpr Seconds kCaDelayAfterAdd = 600;  // --scale-down-delay-after-add 10m
}  // namespace

Policy with_baseline(Policy base, PolicyKind kind) {
  if (kind == PolicyKind::Fitscale) return base;
  base.enforce_budgets = false;
  base.gangs = false;
  base.reclaim_factor = 0;  // neither system taints a node to keep cheap work off its room
  if (kind == PolicyKind::ClusterAutoscaler) {
    base.offering_pick = OfferingPick::LeastWaste;
    base.empty_ttl_s = kCaUnneeded;
    base.delay_after_launch_s = kCaDelayAfterAdd;
  } else {
    base.offering_pick = OfferingPick::Cheapest;
    base.empty_ttl_s = 0;
    base.delay_after_launch_s = 0;
  }
  return base;
}

}  // namespace fitscale
