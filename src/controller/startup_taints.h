#pragma once
// Startup taints (a pool's startupTaints, docs/pools.md) are Karpenter's: a daemon on the node
// (a CNI, a GPU driver installer, a security agent) removes them once the node is ready for
// work, so pods need not tolerate them. While such a taint is still on a node fitscale launched,
// the node is coming capacity for the pods it was launched for, as an in-flight instance is: the
// planner sees it without that taint, so those pods are placed on it (and not launched for
// again), and a node that holds planned pods is not removed as empty. A taint still there
// kStartupTaintGrace after the node registered is taken as it is (whatever should remove it has
// failed): then the pods get other capacity and the node, empty, goes as any empty node.
#include <vector>

#include "model/pool.h"
#include "planner/plan.h"

namespace fitscale {

inline constexpr Seconds kStartupTaintGrace = 900;  // 15 minutes, Karpenter's registration TTL

// Removes from each managed node of `snapshot` the startup taints of its pool (label
// fitscale.io/pool) while the node is younger than kStartupTaintGrace. Only the planning copy
// changes; the Node in the cluster keeps its taints.
void set_aside_startup_taints(Snapshot& snapshot, const std::vector<Pool>& pools, Time now);

}  // namespace fitscale
