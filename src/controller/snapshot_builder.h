#pragma once
// Observe, second half: one Snapshot from the Kubernetes view and the cloud's instance list.
// An instance with no Node is in flight; a Node is matched to its instance by spec.providerID and
// takes the managed fields (price, owner, launch time) from it.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "controller/interfaces.h"
#include "planner/plan.h"

namespace fitscale {

// Offering::key() -> offering, so an in-flight instance gets the labels and allocatable that its
// Node will have.
class OfferingIndex {
 public:
  explicit OfferingIndex(const Catalog& catalog);
  // The offering of `pool` when it has one, else the first pool's with that key.
  const Offering* find(const std::string& type, const std::string& zone, CapacityType c,
                       const std::string& pool = {}) const;

 private:
  std::map<std::string, const Offering*, std::less<>> by_key_;
};

// Since when each node has had nothing that pins it (DESIGN.md: batch and do-not-disrupt pods
// pin a node; daemonset, mirror and evictable pods do not). Kept across loops by the controller.
using EmptySince = std::map<std::string, Time, std::less<>>;

// The managed fields a registered Node takes from its instance.
void copy_instance(const Instance& inst, Node& n);
// A registered Node of `inst` whose device plugin has not reported the GPUs its offering has
// (`reported_gpus`, the Node's own nvidia.com/gpu allocatable, is 0): takes the offering's GPUs
// and Node::gpus_unreported, so GPU pods count it as coming, as they count an in-flight node,
// and nothing is launched for them again. Otherwise the Node's own count stands.
void count_unreported_gpus(Node& n, std::int64_t reported_gpus, const Instance& inst,
                           const OfferingIndex& offerings);
// The Node an instance with no Node yet stands for: its offering's labels and allocatable.
Node in_flight_node(const Instance& inst, const OfferingIndex& offerings);

Snapshot build_snapshot(ClusterState view, const std::vector<Instance>& instances,
                        const OfferingIndex& offerings, const std::set<std::string>& draining,
                        Time now, EmptySince& empty_since);

}  // namespace fitscale
