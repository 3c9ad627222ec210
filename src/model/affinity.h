#pragma once
// Scheduling constraints of a pod beyond resources, nodeSelector, required node affinity and
// tolerations, as the Kubernetes Pod spec writes them (core/v1 TopologySpreadConstraint,
// PodAffinityTerm, WeightedPodAffinityTerm, PreferredSchedulingTerm). The decoder fills them;
// the planner's topology pass (planner/topology.h) turns them into node-label requirements.
#include <cstdint>
#include <string>
#include <vector>

#include "model/labels.h"

namespace fitscale {

enum class WhenUnsatisfiable { DoNotSchedule, ScheduleAnyway };
// nodeAffinityPolicy (default Honor) and nodeTaintsPolicy (default Ignore): whether nodes the
// pod's node affinity (or taints it does not tolerate) exclude count as spread domains.
enum class InclusionPolicy { Honor, Ignore };

struct TopologySpreadConstraint {
  std::int32_t max_skew = 1;
  std::string topology_key;
  WhenUnsatisfiable when_unsatisfiable = WhenUnsatisfiable::DoNotSchedule;
  LabelSelector selector;     // with matchLabelKeys' values from the pod's labels already ANDed in
  bool has_selector = false;  // no labelSelector: the constraint matches no pod, counts nothing
  std::int32_t min_domains = 0;  // 0: not set (the API's nil; 1 in effect)
  InclusionPolicy node_affinity_policy = InclusionPolicy::Honor;
  InclusionPolicy node_taints_policy = InclusionPolicy::Ignore;
  std::vector<std::string> match_label_keys;  // as written (already applied to `selector`)
  bool operator==(const TopologySpreadConstraint&) const = default;
};

// One PodAffinityTerm: pods matching `selector` in `namespaces` (empty: the pod's own) on
// nodes with the same value of `topology_key`. A namespaceSelector other than the empty one
// ("all namespaces") is not read; `all_namespaces` records the empty one.
struct PodAffinityTerm {
  LabelSelector selector;
  std::vector<std::string> namespaces;
  bool all_namespaces = false;
  std::string topology_key;
  bool operator==(const PodAffinityTerm&) const = default;
};

struct WeightedPodAffinityTerm {
  std::int32_t weight = 1;  // 1-100
  PodAffinityTerm term;
  bool operator==(const WeightedPodAffinityTerm&) const = default;
};

struct PreferredNodeTerm {
  std::int32_t weight = 1;  // 1-100
  NodeSelectorTerm preference;
  bool operator==(const PreferredNodeTerm&) const = default;
};

// Everything here is empty for most pods; `any()` lets the planner skip its topology pass.
// Required hostname anti-affinity stays in Pod::anti_affinity_hostname (the packer and the
// placement read it directly); every other key's terms are here.
struct SchedulingConstraints {
  std::vector<TopologySpreadConstraint> spread;
  std::vector<PodAffinityTerm> affinity;       // required podAffinity, every topology key
  std::vector<PodAffinityTerm> anti_affinity;  // required podAntiAffinity, keys other than hostname
  std::vector<WeightedPodAffinityTerm> preferred_affinity;
  std::vector<WeightedPodAffinityTerm> preferred_anti_affinity;
  std::vector<PreferredNodeTerm> preferred_node_affinity;
  // Zones (topology.kubernetes.io/zone values) the pod's bound volumes allow: a PVC bound to a
  // PV with zonal nodeAffinity. Empty: no volume constraint (WaitForFirstConsumer claims that
  // are still unbound let the planner choose).
  std::vector<std::string> volume_zones;

  bool any() const {
    return !spread.empty() || !affinity.empty() || !anti_affinity.empty() ||
           !preferred_affinity.empty() || !preferred_anti_affinity.empty() ||
           !preferred_node_affinity.empty() || !volume_zones.empty();
  }
  bool operator==(const SchedulingConstraints&) const = default;
};

const char* to_string(WhenUnsatisfiable w);

}  // namespace fitscale
