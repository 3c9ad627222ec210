#pragma once
// Scale-down choice: which managed nodes to remove and why. Never a node that runs a pod that
// pins it (Pod::pins_node) unless the node is dead (NotReady past scaleDown.notReadyAfter), never
// one this plan just placed a pending pod on (`nodes_receiving_pods`, sorted), and never one
// whose evictable service pods fit on no other existing node: those it keeps, and says why.
#include <functional>
#include <string_view>
#include <vector>

#include "planner/placement.h"
#include "planner/plan.h"

namespace fitscale::planner {

struct ScaleDown {
  std::vector<RemoveDecision> remove;
  std::vector<KeepDecision> keep;
};

// `room` gives the existing capacity left after this plan's placements; it is called only
// when a node with evictable pods is a candidate (most plans never build it).
ScaleDown choose_removals(const Snapshot& snapshot, const Policy& policy, Time now,
                          const std::vector<std::string_view>& nodes_receiving_pods,
                          const std::function<ExistingCapacity&()>& room);

}  // namespace fitscale::planner
