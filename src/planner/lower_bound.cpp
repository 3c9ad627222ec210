#include <algorithm>
#include <limits>

#include "planner/offering_choice.h"
#include "planner/plan.h"
#include "planner/pod_class.h"
#include "planner/predicates.h"

namespace fitscale {

double lower_bound_usd_per_hour(const Pod& pod, const Catalog& catalog, const Policy& policy) {
  // The same offering choice the planner makes for the pod's class, then the cheapest share.
  const std::vector<Pod> one{pod};
  const auto classes = planner::build_classes(one, {0}, catalog.gpu_models);
  const planner::OfferingChoice choice = planner::choose_offerings(
      classes.front(), catalog, policy, planner::offerings_in_zones(catalog, policy));
  double best = std::numeric_limits<double>::infinity();
  for (std::uint32_t i : choice.usable) {
    const Offering& o = catalog.offerings[i];
    best = std::min(best, o.usd_per_hour * planner::dominant_share(pod.requests, o.allocatable));
  }
  return best == std::numeric_limits<double>::infinity() ? 0.0 : best;
}

}  // namespace fitscale
