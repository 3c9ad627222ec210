#include "planner/offering_choice.h"

#include <algorithm>

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

OfferingChoice choose_offerings(const PodClass& c, const Catalog& catalog, const Policy& policy,
                                const std::vector<std::uint32_t>& candidates) {
  OfferingChoice choice;
  std::vector<std::uint32_t> spot;
  std::vector<std::uint32_t> on_demand;
  const Resources& req = c.exemplar->requests;
  const bool check_labels = !c.node_selector.empty() || !c.affinity.empty();
  const bool check_backoff = !policy.unavailable_offerings.empty();  // key() builds a string
  for (std::uint32_t i : candidates) {
    const Offering& o = catalog.offerings[i];
    if (c.on_demand_only && o.capacity_type == CapacityType::Spot) continue;
    if (!fits(req, o.allocatable)) continue;
    if (check_labels && !labels_admit(c, o.labels)) continue;
    if (check_backoff && policy.unavailable_offerings.count(o.key()) > 0) {
      choice.backed_off.push_back(i);
    } else if (o.capacity_type == CapacityType::Spot) {
      spot.push_back(i);
    } else {
      on_demand.push_back(i);
    }
  }
  choice.usable = spot.empty() ? std::move(on_demand) : std::move(spot);
  return choice;
}

}  // namespace fitscale::planner
