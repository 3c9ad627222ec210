#pragma once
// Scale-down choice: which managed nodes to remove and why. Never a node that runs a batch pod
// or a do-not-disrupt pod, and never one this plan just placed a pending pod on
// (`nodes_receiving_pods`, sorted).
#include <string_view>
#include <vector>

#include "planner/plan.h"

namespace fitscale::planner {

std::vector<RemoveDecision> choose_removals(
    const Snapshot& snapshot, const Policy& policy, Time now,
    const std::vector<std::string_view>& nodes_receiving_pods);

}  // namespace fitscale::planner
