#pragma once
// Scale-down choice: which managed nodes to remove and why. Never a node that runs a pod that
// pins it (Pod::pins_node) unless the node is dead (NotReady past scaleDown.notReadyAfter), never
// one this plan just placed a pending pod on (`nodes_receiving_pods`, sorted), and never one
// whose evictable service pods fit on no other existing node: those it keeps, and says why.
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "planner/placement.h"
#include "planner/plan.h"

namespace fitscale::planner {

struct ScaleDown {
  std::vector<RemoveDecision> remove;
  std::vector<KeepDecision> keep;
};

// How long a node may sit empty before it goes: its pool's scaleDown.after, else the policy's
// emptyAfter; nullopt when its pool keeps empty nodes (scaleDown.whenEmpty: false). A node of a
// pool no longer configured goes by the policy's.
std::optional<Seconds> empty_after(const Node& node, const Catalog& catalog, const Policy& policy);

// `room` gives the existing capacity left after this plan's placements; it is called only
// when a node with evictable pods is a candidate (most plans never build it).
ScaleDown choose_removals(const Snapshot& snapshot, const Catalog& catalog, const Policy& policy,
                          Time now, const std::vector<std::string_view>& nodes_receiving_pods,
                          const std::function<ExistingCapacity&()>& room);

}  // namespace fitscale::planner
