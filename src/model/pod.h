#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/labels.h"
#include "model/resources.h"
#include "model/taint.h"
#include "model/time.h"

namespace fitscale {

enum class PodPhase { Pending, Running, Succeeded, Failed, Unknown };
enum class CapacityType { Spot, OnDemand };

const char* to_string(PodPhase p);
const char* to_string(CapacityType c);  // "spot", "on-demand"

// Who created the pod: drives eviction rules (a Job's or a bare pod is "batch" and never
// evicted to save money) and budget attribution.
struct OwnerRef {
  std::string kind;  // "Job", "ReplicaSet", "DaemonSet", "Node" (mirror pod), "" for a bare pod
  std::string name;
  std::string uid;
};

struct Gang {
  std::string name;     // unique within the namespace
  std::int64_t size = 1;
};

// A pod as the planner and controller see it: decoded, validated, requests already effective
// (max(max init container, sum of containers) + overhead).
struct Pod {
  std::string ns;
  std::string name;
  std::string uid;
  std::string resource_version;  // metadata.resourceVersion: names the version an Event is about
  Labels labels;
  Annotations annotations;
  OwnerRef owner;

  Resources requests;  // effective requests; `pods` is always 1
  Labels node_selector;
  std::vector<NodeSelectorTerm> required_node_affinity;  // OR of terms; empty = none
  std::vector<Toleration> tolerations;
  // Required pod anti-affinity with topologyKey kubernetes.io/hostname: no two pods matching
  // any of these selectors (in the pod's namespace) on one node.
  std::vector<LabelSelector> anti_affinity_hostname;

  std::string node_name;  // empty while unscheduled
  PodPhase phase = PodPhase::Pending;
  Time created = 0;
  std::optional<Seconds> active_deadline_s;
  std::optional<Gang> gang;
  std::int32_t priority = 0;
  bool terminating = false;  // deletionTimestamp set

  std::string key() const { return ns + "/" + name; }
  bool is_daemon() const { return owner.kind == "DaemonSet"; }
  bool is_mirror() const { return owner.kind == "Node" || annotations.count("kubernetes.io/config.mirror") > 0; }
  // A Job's pod or a bare pod: never evicted to save money (DESIGN.md).
  bool is_batch() const { return owner.kind == "Job" || owner.kind.empty(); }
  bool do_not_disrupt() const;
  // Requires on-demand: nodeSelector or every required-affinity term pins the capacity type
  // (either key, fitscale.io or karpenter.sh) to on-demand only.
  bool requires_on_demand() const;
  // Worst-case runtime: activeDeadlineSeconds, else fitscale.io/max-runtime, else nullopt
  // (the budget's default applies). Throws InputError on a malformed annotation.
  std::optional<Seconds> declared_max_runtime() const;
  // The job this pod belongs to for budgets and gangs: the gang name, else label
  // fitscale.io/job (simulator, virtual cluster), else the owning Job's name, else the pod's
  // name. Unique within the namespace only (no "ns/" prefix).
  std::string job_key() const;
};

}  // namespace fitscale
