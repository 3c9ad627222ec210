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
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/catalog.h"
#include "planner/plan.h"

namespace fitscale::planner {

struct ResolvedTopology {
  Snapshot snapshot;                           // pods rewritten, constraints cleared
  std::vector<UnschedulableDecision> refused;  // pods whose required constraints no domain meets
};

// kube-scheduler's skew rule for one spread constraint, shared by the planner's choice of domain
// (resolve_topology) and a binder's check of one node (TopologyFilter): the floor is the least
// count of matching pods over the counted domains, 0 while fewer than max(1, minDomains)
// domains exist; a domain admits the pod while its count, plus one if the pod matches itself,
// minus the floor is at most maxSkew.
std::int64_t spread_floor(std::span<const std::int64_t> domain_counts, std::int32_t min_domains);
bool within_skew(std::int64_t in_domain, bool self_match, std::int64_t floor,
                 std::int32_t max_skew);

// Whether a pod term of a pod in namespace `owner_ns` (term namespaces `namespaces`, or every
// namespace) looks at pods of namespace `ns`: the term's own namespaces, else the owner's.
bool term_scope_includes(const std::string& owner_ns, const std::vector<std::string>& namespaces,
                         bool all_namespaces, const std::string& ns);

// nullopt when no pending pod carries a constraint (the snapshot is used as it is). Pure.
std::optional<ResolvedTopology> resolve_topology(const Snapshot& s, const Catalog& catalog,
                                                 const Policy& policy);

}  // namespace fitscale::planner
