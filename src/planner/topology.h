#pragma once
// Topology constraints resolved before planning (docs/planner.md, "Topology"): every pending
// pod's topology spread constraints, pod affinity and anti-affinity on keys other than the
// hostname, preferences and volume zones become plain node-label requirements (a zone, a
// capacity type, any node label In or NotIn some values) ANDed into its required node
// affinity, and hostname spread becomes hostname anti-affinity. Everything after — placement
// on existing nodes, classes, offerings, packing, gangs — already honours those, so one place
// decides topology and every later step obeys it.
//
// Domains are chosen pod by pod in scheduling order: a spread pod goes to the domain with the
// fewest matching pods among those its maxSkew allows; the pods it matches then count there.
#include <optional>
#include <vector>

#include "model/catalog.h"
#include "planner/plan.h"

namespace fitscale::planner {

struct ResolvedTopology {
  Snapshot snapshot;                           // pods rewritten, constraints cleared
  std::vector<UnschedulableDecision> refused;  // pods whose required constraints no domain meets
};

// nullopt when no pending pod carries a constraint (the snapshot is used as it is). Pure.
std::optional<ResolvedTopology> resolve_topology(const Snapshot& s, const Catalog& catalog,
                                                 const Policy& policy);

}  // namespace fitscale::planner
