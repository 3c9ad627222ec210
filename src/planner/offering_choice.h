#pragma once
// Which offerings one pod class may launch right now: spot by default, on-demand only for pods
// that require it or when no spot offering can take the class; offerings backed off after a
// launch failure are set aside (they explain a CapacityBackoff reason).
#include <cstdint>
#include <vector>

#include "model/catalog.h"
#include "planner/plan.h"
#include "planner/pod_class.h"

namespace fitscale::planner {

struct OfferingChoice {
  std::vector<std::uint32_t> usable;      // indexes into Catalog::offerings
  std::vector<std::uint32_t> backed_off;  // fit the class but are unavailable now
  bool fits_somewhere() const { return !usable.empty() || !backed_off.empty(); }
};

// Offerings of the catalog in the policy's zones, the candidates every class starts from.
std::vector<std::uint32_t> offerings_in_zones(const Catalog& catalog, const Policy& policy);

// `candidates` are offering indexes (e.g. offerings_in_zones, or one zone's for a gang).
OfferingChoice choose_offerings(const PodClass& c, const Catalog& catalog, const Policy& policy,
                                const std::vector<std::uint32_t>& candidates);

}  // namespace fitscale::planner
