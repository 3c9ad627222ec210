#include "planner/offering_choice.h"

#include <algorithm>
#include <limits>

#include "model/taint.h"
#include "planner/predicates.h"

namespace fitscale::planner {

std::vector<std::uint32_t> offerings_in_zones(const Catalog& catalog, const Policy& policy) {
  std::vector<std::uint32_t> out;
  out.reserve(catalog.offerings.size());
  for (std::uint32_t i = 0; i < catalog.offerings.size(); ++i) {
    const Offering& o = catalog.offerings[i];
    if (std::find(policy.zones.begin(), policy.zones.end(), o.zone) != policy.zones.end()) {
      out.push_back(i);
    }
  }
  return out;
}

bool offering_admits(const PodClass& c, const Offering& o) {
  if (c.on_demand_only && o.capacity_type == CapacityType::Spot) return false;
  if (!fits(c.exemplar->requests, o.allocatable)) return false;
  if ((!c.node_selector.empty() || !c.affinity.empty()) && !labels_admit(c, o.labels)) return false;
  // Startup taints are not here: Karpenter's rule, they are expected to be removed by the time
  // the node takes pods.
  return o.taints.empty() || tolerates_all(c.exemplar->tolerations, o.taints);
}

std::vector<OfferingChoice> choose_offerings_by_pool(const PodClass& c, const Catalog& catalog,
                                                     const Policy& policy,
                                                     const std::vector<std::uint32_t>& candidates) {
  const std::size_t pools = std::max<std::size_t>(1, catalog.pools.size());
  std::vector<std::vector<std::uint32_t>> spot(pools);
  std::vector<std::vector<std::uint32_t>> on_demand(pools);
  std::vector<std::vector<std::uint32_t>> reserved(pools);
  std::vector<std::uint32_t> backed_off;
  const bool check_backoff = !policy.unavailable_offerings.empty();  // key() builds a string
  for (std::uint32_t i : candidates) {
    const Offering& o = catalog.offerings[i];
    if (!offering_admits(c, o)) continue;
    const std::size_t p = std::min<std::size_t>(o.pool_index, pools - 1);
    if (check_backoff && policy.unavailable_offerings.count(o.key()) > 0) {
      backed_off.push_back(i);
    } else if (is_reserved(o)) {
      reserved[p].push_back(i);
    } else if (o.capacity_type == CapacityType::Spot) {
      spot[p].push_back(i);
    } else {
      on_demand[p].push_back(i);
    }
  }
  struct Ranked {
    std::int64_t weight;
    bool reserved;
    double price;  // of one pod on the pool's cheapest usable offering
    OfferingChoice choice;
  };
  std::vector<Ranked> ranked;
  for (std::uint32_t p = 0; p < pools; ++p) {
    // Each reservation is a choice of its own, before the pool's spot and on-demand ones: its
    // room is counted on its own (PoolBook), and a job it cannot hold moves on to the next.
    const std::int64_t weight = p < catalog.pools.size() ? catalog.pools[p].weight : 0;
    for (std::uint32_t i : reserved[p]) {
      const Offering& o = catalog.offerings[i];
      ranked.push_back({weight,
                        true,
                        o.usd_per_hour * dominant_share(c.exemplar->requests, o.allocatable),
                        {p, {i}, {}}});
    }
    std::vector<std::uint32_t>& usable = spot[p].empty() ? on_demand[p] : spot[p];
    if (usable.empty()) continue;
    double price = std::numeric_limits<double>::infinity();
    for (std::uint32_t i : usable) {
      const Offering& o = catalog.offerings[i];
      price = std::min(price, o.usd_per_hour * dominant_share(c.exemplar->requests, o.allocatable));
    }
    ranked.push_back({weight, false, price, {p, std::move(usable), {}}});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    if (a.weight != b.weight) return a.weight > b.weight;
    if (a.reserved != b.reserved) return a.reserved;  // reserved first: it is paid for
    return a.price < b.price;
  });
  std::vector<OfferingChoice> out;
  out.reserve(ranked.size() + 1);
  for (Ranked& r : ranked) out.push_back(std::move(r.choice));
  if (out.empty()) {
    OfferingChoice none;
    none.backed_off = std::move(backed_off);
    out.push_back(std::move(none));
  }
  return out;
}

OfferingChoice choose_offerings(const PodClass& c, const Catalog& catalog, const Policy& policy,
                                const std::vector<std::uint32_t>& candidates) {
  return std::move(choose_offerings_by_pool(c, catalog, policy, candidates).front());
}

}  // namespace fitscale::planner
