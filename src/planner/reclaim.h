#pragma once
// Keeping expensive room from being held by cheap work (issue 18). A node goes only when its last
// pod leaves, so once the job it was launched for has ended, every new pod that lands in its free
// room keeps the whole node alive: a 1-GPU pod on an 8-GPU node that its own job left behind pays
// for eight GPUs as soon as the node's other pods are gone. Such a node gets the taint
// fitscale.io/reclaim:NoSchedule (nothing is ever evicted: what runs there runs to its end), so
// kube-scheduler, the virtual cluster's scheduler and the simulator's binder send new pods
// elsewhere; the taint is removed again as soon as the node is the cheapest place for pending
// work (or its launch job has pods again, e.g. after a restart).
#include <string>
#include <string_view>
#include <vector>

#include "model/catalog.h"
#include "planner/plan.h"

namespace fitscale::planner {

inline constexpr std::string_view kReclaimTaint = "fitscale.io/reclaim";

struct ReclaimChange {
  std::vector<std::string> taint;    // nodes to taint, by name
  std::vector<std::string> untaint;  // nodes whose reclaim taint goes
  bool empty() const { return taint.empty() && untaint.empty(); }
};

// Pure. A managed Ready node (not owned, not cordoned, not interrupted) with free room whose
// launch job (Node::owner_namespace / owner_job) has no live pod is *reclaimable*: it is tainted
// unless pending work makes its room worth keeping open. Pending pods are taken in scheduling
// order, each counting on one node only (the cheapest room first):
// - a pod that declares its expected runtime T (fitscale.io/expected-runtime) when the node's
//   pods all do too: it keeps the node alive past when they would have left it (their start
//   plus their expected runtime, L from now) for max(0, T - L) at the node's price; that must
//   be at most `policy.reclaim_factor` / 2 times what it costs on a node of its own for T, at its
//   lower bound (lower_bound_usd_per_hour). A short pod rides for free in room a long one holds;
//   a long one does not keep a node alive that would otherwise go.
// - otherwise, by price alone: the pods that would fill the room must cost, at their lower bound
//   on new nodes, at least 1/(2 x `reclaim_factor`) of the room's price (the node's price times
//   one minus the dominant share its pods use): without runtimes a pod may be a free rider.
// A pending pod that no new node can hold keeps any node it fits open. `reclaim_factor` <= 0:
// never taint (and every reclaim taint is removed).
ReclaimChange decide_reclaim(const Snapshot& snapshot, const Catalog& catalog, const Policy& policy,
                             Time now);

}  // namespace fitscale::planner
