#pragma once
// Which offerings one pod class may launch right now. An offering is offered through a pool
// (Offering::pool_index): the class may use it when it fits, its labels (the pool's included)
// satisfy the class's nodeSelector and required node affinity, and the class tolerates its
// taints — the one feasibility check for new nodes. Pools are tried by weight, higher first,
// then by the price of one pod on their cheapest usable offering. Within a pool: first each
// reservation it selects (capacity type reserved, one choice per reservation, while it has room:
// PoolBook), then spot by default, on-demand only for pods that require it or when no spot offering
// can take the class; offerings backed off after a launch failure are set aside (they explain a
// CapacityBackoff reason).
#include <cstdint>
#include <vector>

#include "model/catalog.h"
#include "planner/plan.h"
#include "planner/pod_class.h"

namespace fitscale::planner {

struct OfferingChoice {
  std::uint32_t pool = 0;                 // index into Catalog::pools of `usable`
  std::vector<std::uint32_t> usable;      // indexes into Catalog::offerings
  std::vector<std::uint32_t> backed_off;  // fit the class but are unavailable now
  bool fits_somewhere() const { return !usable.empty() || !backed_off.empty(); }
};

// Offerings of the catalog in the policy's zones, the candidates every class starts from.
std::vector<std::uint32_t> offerings_in_zones(const Catalog& catalog, const Policy& policy);

// Whether the class may use offering `o` at all (resources, labels, taints, on-demand only).
bool offering_admits(const PodClass& c, const Offering& o);

// One choice per pool with usable offerings, most preferred first (weight, then price); when
// no pool has a usable one, a single choice with the backed-off offerings of all pools.
// `candidates` are offering indexes (e.g. offerings_in_zones, or one zone's for a gang).
std::vector<OfferingChoice> choose_offerings_by_pool(const PodClass& c, const Catalog& catalog,
                                                     const Policy& policy,
                                                     const std::vector<std::uint32_t>& candidates);

// The most preferred pool's choice (the first of choose_offerings_by_pool), or an empty one.
OfferingChoice choose_offerings(const PodClass& c, const Catalog& catalog, const Policy& policy,
                                const std::vector<std::uint32_t>& candidates);

}  // namespace fitscale::planner
