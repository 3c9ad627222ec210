#pragma once
// Gangs on new nodes: all of a gang's pods, on nodes of ONE zone (the zone where the whole gang
// costs least), or nothing. A gang's nodes serve only the gang, so they launch together and
// its cost is exactly theirs.
#include <cstdint>
#include <string>
#include <vector>

#include "model/catalog.h"
#include "planner/packing.h"
#include "planner/plan.h"
#include "planner/pod_class.h"

namespace fitscale::planner {

struct GangPlan {
  bool ok = false;
  std::string zone;
  Micros micros_per_hour = 0;
  std::int64_t nodes = 0;
  std::int64_t gpus = 0;
  std::vector<NewNodes> groups;
  UnschedulableKind kind = UnschedulableKind::NoOffering;  // when !ok
  std::string reason;
};

// `gang` names it in reasons ("gang train-a"); `members` are the gang's pods by class.
GangPlan pack_gang(const std::string& gang, const std::vector<PodClass>& members,
                   const Catalog& catalog, const Policy& policy,
                   const std::vector<std::uint32_t>& zone_offerings);

}  // namespace fitscale::planner
