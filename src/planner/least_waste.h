#pragma once
// cluster-autoscaler's least-waste expander, for the `policy: cluster-autoscaler` baseline
// (planner/baseline_policy.h). Its node groups are one instance type each; for a pod class the
// expander picks the group whose new nodes, once the class's pending pods are packed onto
// them, leave the least idle CPU, then the least unused memory (the expander's score is the
// sum of the two fractions; GPUs do not count). cluster-autoscaler breaks remaining ties at
// random; here they go to the cheaper node, then the instance type's name, so runs repeat.
#include <cstdint>
#include <vector>

#include "model/catalog.h"
#include "planner/offering_choice.h"
#include "planner/pod_class.h"

namespace fitscale::planner {

// The expander's score of growing instance type offering `o` for `pods` pods of `requests`:
// idle CPU fraction + unused memory fraction over the nodes they need. Lower is better;
// infinity when none fits.
double waste_score(const Resources& requests, std::int64_t pods, const Offering& o);

// Keeps in each choice only the offerings of its least-waste instance type (all its zones:
// a node group spans them), as the class's pending pods would be packed onto it.
void keep_least_waste(const PodClass& c, const Catalog& catalog,
                      std::vector<OfferingChoice>& choices);

}  // namespace fitscale::planner
