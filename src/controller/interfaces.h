#pragma once
// The seams between the controller and the three worlds it runs in (DESIGN.md, "One controller,
// three worlds"): simulated (sim/), live Kubernetes + AWS (kube/, cloud/aws/), and the virtual
// cluster served on loopback. Nothing behind these interfaces is visible to the controller.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/budget_object.h"
#include "model/catalog.h"
#include "model/launch_record.h"
#include "model/money.h"
#include "model/node.h"
#include "model/pod.h"
#include "model/time.h"

namespace fitscale {

class Clock {
 public:
  virtual ~Clock() = default;
  // Unix time in whole seconds: timestamps, timers, budgets.
  virtual Time now() const = 0;
  // Seconds on a clock that never jumps (NTP steps, a changed date) and resolves far below one
  // second: what durations are measured with (the loop's phases). Only differences between two
  // readings mean anything. A clock without one (a test's hand-set clock) measures with now().
  virtual double monotonic_seconds() const { return static_cast<double>(now()); }
};

// ---------------------------------------------------------------------------------------------
// Cluster side.

struct PodDisruptionBudgetView {
  std::string ns;
  std::string name;
  LabelSelector selector;
  std::int64_t disruptions_allowed = 0;  // status.disruptionsAllowed
  bool operator==(const PodDisruptionBudgetView&) const = default;
};

// An object that could not be decoded, with what identifies the version that failed: it is
// reported once per (uid, resourceVersion), again only when it changes.
struct BadObject {
  std::string key;  // "ns/name", or "name" for cluster-scoped objects
  std::string error;
  std::string uid;
  std::string resource_version;
  bool operator==(const BadObject&) const = default;
};

// Kubernetes nodes (with no cloud information: state is Registered or Ready) and pods.
struct ClusterState {
  bool synced = false;  // false: the view cannot be trusted; the controller acts on nothing
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<PodDisruptionBudgetView> pdbs;
  // Pods that could not be decoded: skipped with an event on them, never fatal.
  std::vector<BadObject> bad_pods;
};

enum class EvictOutcome { Evicted, BlockedByBudget /* HTTP 429 */, NotFound, Failed };

// An Event's involvedObject. uid and resource_version may be left empty: a view that knows the
// object (the Kubernetes view's informer cache) fills them in, so `kubectl describe`, which
// selects events by involvedObject.uid, finds them.
struct ObjectRef {
  std::string kind;  // "Pod", "Node", "Budget"
  std::string ns;    // empty for nodes
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string api_version = {};  // empty: "v1" (a custom resource's: "fitscale.io/v1alpha1")
};

// An in-process cluster's own nodes and pods, lent instead of copied: copying every Node and Pod
// on each planned loop was most of the simulator's time (docs/PERFORMANCE.md). Each object
// carries a revision that the cluster makes new (unique across all objects) whenever the object
// changes, so whoever kept a copy from an earlier loop copies only what changed. Valid until the
// cluster next changes; always synced, with no disruption budgets and no undecodable pods.
struct ClusterLoan {
  std::vector<const Node*> nodes;  // ordered by name
  std::vector<std::uint64_t> node_revisions;
  // Changes whenever `nodes` or `node_revisions` would; 0: not kept. Most planned loops follow
  // a pod's change, not a node's: the lender then leaves both vectors as they are, and the
  // borrower need not compare them.
  std::uint64_t nodes_version = 0;
  const std::vector<Pod>* pods = nullptr;
  const std::vector<std::uint64_t>* pod_revisions = nullptr;
};

class ClusterView {
 public:
  virtual ~ClusterView() = default;
  // Changes every time anything in the view changes, so a loop with nothing new can skip work.
  virtual std::uint64_t generation() const = 0;
  virtual ClusterState observe() = 0;
  // Fills `loan` and returns true if this view can lend its state (see ClusterLoan); false: the
  // caller copies it with observe() (a Kubernetes informer's view).
  virtual bool lend(ClusterLoan& /*loan*/) { return false; }
  virtual bool cordon(const std::string& node) = 0;
  // Undoes cordon: a drain fitscale started and cannot finish (a PodDisruptionBudget refused an
  // eviction) must not leave the node unschedulable for good.
  virtual bool uncordon(const std::string& node) = 0;
  virtual bool add_taint(const std::string& node, const Taint& taint) = 0;
  // Removes every taint with this key (true also when there was none): fitscale's own
  // to-be-deleted mark on a node whose removal it cancels.
  virtual bool remove_taint(const std::string& node, const std::string& key) = 0;
  virtual EvictOutcome evict(const std::string& ns, const std::string& pod) = 0;
  virtual bool delete_node(const std::string& node) = 0;
  // Deletes a pod (graceful, as `kubectl delete pod` does): how maxRuntimeAction: terminate ends
  // a job past its worst case. True when the pod is gone or going (also when it was not found).
  virtual bool delete_pod(const std::string& ns, const std::string& pod) = 0;
  // Removes the scheduling gate `gate` from pod ns/name and no other (a gate may be removed
  // from a pod, never added after its creation). True when it is gone (also when it already
  // was); false when the write failed or was not allowed. Pure: a wrapper that forgot to
  // forward it would hold gated pods forever.
  virtual bool remove_scheduling_gate(const std::string& ns, const std::string& pod,
                                      std::string_view gate) = 0;
  // type "Normal" or "Warning"; reason a CamelCase word ("TriggeredScaleUp", "BudgetRefused").
  // Must not wait for the network: the loop calls it once per pod it reports on (the
  // Kubernetes view queues it for a worker, see kube/event_recorder.h).
  virtual void record_event(const ObjectRef& about, const std::string& type,
                            const std::string& reason, const std::string& message) = 0;
};

// Budget objects (budgets.fitscale.io): caps kept in the cluster, and the status in which the
// leader records each namespace's spend and alerts so that a new leader starts from it
// (docs/budgets.md, "Budget objects"). The Kubernetes implementation is kube/kube_budget_store.h.
class BudgetStore {
 public:
  virtual ~BudgetStore() = default;
  // False until the objects were read once: a new leader waits for it, or it would start from
  // no record.
  virtual bool synced() const = 0;
  // Changes whenever objects() or bad_objects() would.
  virtual std::uint64_t generation() const = 0;
  virtual std::vector<BudgetObject> objects() const = 0;
  // Budgets that could not be read (named, with the error); the others still apply.
  virtual std::vector<BadObject> bad_objects() const = 0;
  // Replaces the object's status (the status subresource). Returns "" or the error.
  virtual std::string write_status(const BudgetObject& of, const BudgetStatus& status) = 0;
};

// Launch objects (launches.fitscale.io): every node fitscale launched, what for and how it went
// (controller/launch_lifecycle.h). The Kubernetes implementation is kube/launch_writer.h.
class LaunchLog {
 public:
  virtual ~LaunchLog() = default;
  // The launch as it is now (its whole record, not a delta). Must not wait for the network: a
  // burst of 10,000 launches calls it 10,000 times in one loop.
  virtual void launch_changed(const LaunchRecord& launch) = 0;
};

// ---------------------------------------------------------------------------------------------
// Cloud side.

struct Instance {
  std::string id;
  std::string instance_type;
  std::string zone;
  CapacityType capacity_type = CapacityType::Spot;
  std::string state;        // "pending", "running", "shutting-down", "terminated"
  std::string provider_id;  // what the Node's spec.providerID will be
  Time launched_at = 0;
  Micros price_micros_per_hour = 0;
  std::string pool;
  std::string owner_namespace;
  std::string job;
  bool interruption_notice = false;
  std::map<std::string, std::string> tags;
  // What its Node is to carry, from its pool (empty: the offering's): the simulated clouds
  // register the Node with them.
  Labels node_labels;
  std::vector<Taint> node_taints;
  // The provider instance that listed it (a multi-provider cloud sets it; docs/clouds.md).
  std::string provider = {};
  // Owned hardware (cloud/static/): metered like the rest, never terminated, never removed by
  // scale-down (may_remove in model/node.h). Its Node is found by `node_name` when it has no
  // spec.providerID (a kubeadm node on premises has none).
  bool owned = false;
  std::string node_name = {};
};

struct LaunchRequest {
  std::string instance_type;
  std::string zone;
  CapacityType capacity_type = CapacityType::Spot;
  int count = 1;
  std::string pool;
  std::string owner_namespace;
  std::string job;
  // The labels and taints (startup taints included) its Nodes are to carry: its offering's
  // and its pool's (docs/pools.md).
  Labels node_labels;
  std::vector<Taint> node_taints;
  // The pool's template.launchTemplate (docs/pools.md); empty: the provider's own.
  std::string launch_template_name, launch_template_id, launch_template_version;
  std::string client_token;  // idempotency: a retried request never launches twice
  // The offering's provider (Offering::provider): which provider instance a multi-provider
  // cloud hands it to. "" = the only one.
  std::string provider = {};
  Micros price_micros_per_hour = 0;
  // Defence in depth: the most this launch may add per hour under the budgets' $/h caps (what
  // they still allow). A cloud that can enforce it does (EC2 CreateFleet MaxTotalPrice), so a
  // bug above cannot overspend. nullopt: no hourly cap applies.
  std::optional<Micros> max_total_micros_per_hour;
  // A gang's: `count` instances or none (LaunchDecision::all_or_nothing).
  bool all_or_nothing = false;
};

struct LaunchFailure {
  std::string offering_key;  // Offering::key()
  int count = 0;             // instances not launched
  std::string code;          // "InsufficientInstanceCapacity", ...
  std::string message;
  bool capacity_error = false;  // back off this offering; a non-capacity error is not one
};

struct LaunchResult {
  std::vector<Instance> launched;
  std::vector<LaunchFailure> failures;
};

class CloudProvider {
 public:
  virtual ~CloudProvider() = default;
  virtual std::string name() const = 0;  // "sim", "aws"
  virtual LaunchResult launch(const LaunchRequest& request) = 0;
  virtual void terminate(const std::vector<std::string>& instance_ids) = 0;
  // Every instance this cluster owns (tagged with the cluster's name), not yet terminated.
  virtual std::vector<Instance> list_instances() = 0;
  // Changes whenever list_instances() would return something different, so the controller can
  // skip listing on a quiet loop. nullopt: not known (a real cloud); the controller lists.
  virtual std::optional<std::uint64_t> generation() const { return std::nullopt; }
  // What list_instances() would return, lent instead of copied by an in-process cloud that keeps
  // it: valid while generation() stays the same. nullptr: call list_instances().
  virtual const std::vector<Instance>* lend_instances() const { return nullptr; }
};

}  // namespace fitscale
