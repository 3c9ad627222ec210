#pragma once
// What the cluster's DaemonSets will take on every new node, for
// AllocatableRule::daemonset_overhead (issue 2: allocatable "with daemonset overhead subtracted
// when the cluster runs daemonsets").
#include <vector>

#include "model/pod.h"
#include "model/resources.h"

namespace fitscale {

// Sum over the DaemonSets that have pods of the largest effective request among each one's pods
// (a DaemonSet runs one pod per node), including one pod slot each. Pods that are terminating or
// finished do not count. A DaemonSet is told apart by its namespace and owner uid (or name).
Resources daemonset_overhead(const std::vector<Pod>& pods);

}  // namespace fitscale
