#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/affinity.h"
#include "model/labels.h"
#include "model/resources.h"
#include "model/taint.h"
#include "model/time.h"

namespace fitscale {

// The scheduling gate fitscale's mutating webhook adds to new pods of budgeted namespaces
// (docs/budgets.md, "The budget gate").
inline constexpr std::string_view kBudgetGate = "fitscale.io/budget";

enum class PodPhase { Pending, Running, Succeeded, Failed, Unknown };
// Reserved: an instance in capacity bought ahead (model/reservation.h); like on-demand, nobody
// interrupts it.
enum class CapacityType { Spot, OnDemand, Reserved };

// What kube-scheduler last said about an unbound pod in its PodScheduled condition. Only
// Unschedulable (status False, reason Unschedulable) means it tried every node and none could
// hold the pod; a pod it has not looked at yet, or one it is still binding, may fit without
// new capacity. Hand-built pods (tests, the simulator's trace pods) default to Unschedulable:
// the simulator's scheduler runs before the controller at every instant, so a pod the
// controller sees unbound is one it has failed to place. The decoder reads the real condition.
enum class SchedulerVerdict { Unschedulable, NotYet };

const char* to_string(PodPhase p);
const char* to_string(CapacityType c);  // "spot", "on-demand", "reserved"

// Who created the pod: drives eviction rules (a Job's or a bare pod is "batch" and never
// evicted to save money) and budget attribution.
struct OwnerRef {
  std::string kind;  // "Job", "ReplicaSet", "DaemonSet", "Node" (mirror pod), "" for a bare pod
  std::string name;
  std::string uid;
  bool operator==(const OwnerRef&) const = default;
};

// The object whose spec decides a gang's size (model/gang_sources/, docs/frameworks.md): none
// (the pod says it), a coscheduling PodGroup, a Volcano PodGroup, or a JobSet. The object has
// the gang's name, in the pod's namespace.
enum class GangSizer { Pod, CoschedulingPodGroup, VolcanoPodGroup, JobSet };

struct Gang {
  std::string name;  // unique within the namespace
  std::int64_t size = 1;
  // Who decides the size: that object wins over a size on the pod, since it is what the
  // framework's scheduler obeys (model/pod_group.h applies it).
  GangSizer sized_by = GangSizer::Pod;
  // A size neither the pod nor the object says (yet): such a gang's scheduler binds none of it,
  // so nothing is launched for it; its pods wait, with a reason, until the object appears.
  bool size_unknown = false;
  // Set where a framework creates the rest of a gang only once its first pods run
  // (LeaderWorkerSet's startupPolicy LeaderReady, which the pods do not show): a gang still
  // incomplete after this long is planned with the pods it has.
  std::optional<Seconds> partial_after = std::nullopt;
  bool operator==(const Gang&) const = default;
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
  // Topology spread, pod affinity and anti-affinity on other keys, preferences, volume zones
  // (model/affinity.h; decided by planner/topology.h).
  SchedulingConstraints constraints;

  std::string node_name;  // empty while unscheduled
  PodPhase phase = PodPhase::Pending;
  Time created = 0;
  // status.startTime: when the kubelet took the pod on (what activeDeadlineSeconds counts from).
  // 0: not started, or not known (then a worst case counts from `created`).
  Time started = 0;
  std::optional<Seconds> active_deadline_s;
  std::optional<Gang> gang;
  std::int32_t priority = 0;
  bool terminating = false;  // deletionTimestamp set
  // spec.schedulingGates, by name: while any is left the scheduler does not consider the pod
  // (Kueue gates every workload it has not admitted with kueue.x-k8s.io/admission; fitscale's
  // webhook gates new pods of budgeted namespaces with fitscale.io/budget).
  std::vector<std::string> scheduling_gates;
  // spec.volumes[].persistentVolumeClaim.claimName, in the pod's namespace: the claims whose
  // bound volumes' zones become constraints.volume_zones (kube/volume_topology.h).
  std::vector<std::string> volume_claims;
  // status.nominatedNodeName: the scheduler preempted pods there to make room for this one
  // and will bind it there; the pod takes that node's capacity, as kube-scheduler reserves it.
  std::string nominated_node;
  SchedulerVerdict scheduler_verdict = SchedulerVerdict::Unschedulable;
  // Every field: a view the controller observed again is the one it planned from
  // (controller/own_write_echo.h).
  bool operator==(const Pod&) const = default;

  std::string key() const { return ns + "/" + name; }
  bool scheduling_gated() const { return !scheduling_gates.empty(); }
  bool is_daemon() const { return owner.kind == "DaemonSet"; }
  bool is_mirror() const {
    return owner.kind == "Node" || annotations.count("kubernetes.io/config.mirror") > 0;
  }
  // A Job's pod or a bare pod: never evicted to save money (DESIGN.md).
  bool is_batch() const { return owner.kind == "Job" || owner.kind.empty(); }

  // ---- Lifecycle: every layer asks these, none decides them again (docs/planner.md).
  // Succeeded or Failed: it will never run again and holds nothing.
  bool finished() const { return phase == PodPhase::Succeeded || phase == PodPhase::Failed; }
  // Takes room on its node: bound and not finished. Terminating pods and pods in phase Unknown
  // (their kubelet stopped reporting) count until they are gone, as kube-scheduler counts them.
  bool holds_resources() const { return !node_name.empty() && !finished(); }
  // The node whose capacity this pod takes: its own when it holds resources, else the node it
  // is nominated to (preemption made room there for it), else none (nullptr).
  const std::string* capacity_node() const;
  // Keeps its node from being removed: a batch or do-not-disrupt pod that holds resources there
  // and is neither a daemon nor a mirror pod. A Terminating one pins until it is gone (as
  // cluster-autoscaler waits for a deleted pod before it removes the node: it may be using its
  // grace period), and so does one in phase Unknown (its kubelet stopped reporting; whether it
  // still runs is not known). A node whose kubelet is gone is removed by the NotReady rule,
  // which does not ask this (docs/planner.md, scale-down).
  bool pins_node() const;
  // Counted in its node's cost split: holds resources there and is neither daemon nor mirror
  // (a Terminating or Unknown pod still takes its share until it is gone). Also what makes a
  // node not empty.
  bool metered() const;
  // Evicted and rescheduled elsewhere when its node is removed: a pod holding resources, not
  // being deleted already, that is not batch, daemon, mirror or do-not-disrupt (a ReplicaSet's,
  // a StatefulSet's). Scale-down removes its node only when it fits on other existing capacity.
  bool evictable_service() const;
  // In the scheduler's queue: unbound, phase Pending, not terminating, not a daemon or mirror
  // pod, no scheduling gates, whatever the scheduler said of it so far. Such a pod may be bound
  // to any node with room at any moment, so scale-down keeps an empty node it fits on.
  bool waits_for_scheduler() const;
  // Kubernetes' "pending" (what triggers a launch): waits for the scheduler, is not nominated
  // to a node, and was marked PodScheduled=False/Unschedulable by it.
  bool unschedulable() const;
  // Held by fitscale's budget gate and nothing else: unbound, phase Pending, not terminating,
  // not a daemon or mirror pod, not nominated, and fitscale.io/budget is its only scheduling
  // gate. Not pending (the scheduler has not looked at it), but budget admission considers it
  // as if it were, and the controller removes the gate once its job is admitted. A pod that
  // also carries another gate (Kueue's) waits for that one first.
  bool held_by_budget_gate() const;
  // Pending or held by the budget gate: what the planner serves.
  bool awaits_capacity() const { return unschedulable() || held_by_budget_gate(); }
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
