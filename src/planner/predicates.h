#pragma once
// Scheduling predicates, and the one feasibility check built from them: does this pod (or every
// pod of a class) fit this node, and if not, why. The planner's placement, the simulator's
// binder and the virtual cluster's scheduler all ask `misfit` (or its two halves), so what the
// planner expects to fit is what the binders bind (docs/planner.md, "The feasibility check").
// Evaluated once per (pod class, node or offering) where possible, never per pod; allocation-free.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/labels.h"
#include "model/node.h"
#include "model/pod.h"
#include "model/resources.h"
#include "model/taint.h"

namespace fitscale::planner {

struct PodClass;

// Why a pod does not fit a node. One value per predicate, in the order the check runs them
// (kube-scheduler's filter order: node state, affinity, taints, resources, pods on the node).
enum class MisfitKind : std::uint8_t {
  None,
  NodeNotReady,       // registered or launched but not Ready, where only Ready nodes count
  NodeUnschedulable,  // spec.unschedulable (cordoned)
  NodeBeingRemoved,   // fitscale is draining it, or its spot instance got an interruption notice
  GpusUnreported,     // a GPU pod, and the node's device plugin has not reported its GPUs yet
  NodeAffinity,       // nodeSelector or required node affinity (labels: arch, zone, GPU model...)
  CapacityType,       // the pod requires on-demand, the node fitscale launched is spot
  Taint,              // a NoSchedule/NoExecute taint the pod does not tolerate
  Resources,          // not enough free room of one resource
  PodAntiAffinity,    // required hostname anti-affinity with a pod on the node (either way)
  // The topology steps a binder adds for pods placed now (planner/topology_filter.h); the
  // planner decides them before placement, as node-label requirements (planner/topology.h).
  VolumeZone,               // the pod's bound volumes are in another zone
  TopologySpread,           // a DoNotSchedule spread constraint's skew, or its label missing
  ExistingPodAntiAffinity,  // a pod in the node's domain has required anti-affinity to it
  PodAntiAffinityTerm,      // its own required anti-affinity (a key other than the hostname)
  PodAffinity,              // its required pod affinity: no matching pod in the node's domain
};

// A misfit with the numbers a message needs. Pointers and views point into the pod and node
// given to the check (valid while they are).
struct Misfit {
  MisfitKind kind = MisfitKind::None;
  const Taint* taint = nullptr;  // Taint: the first one not tolerated
  std::string_view resource;     // Resources: its Kubernetes name ("cpu", "nvidia.com/gpu")
  std::int64_t wanted = 0;       // Resources: the pod's request (milli-CPU, bytes, units)
  std::int64_t free = 0;         // Resources: what the node has free of it
  const Pod* other = nullptr;    // PodAntiAffinity: the pod on the node it conflicts with

  explicit operator bool() const { return kind != MisfitKind::None; }
};

// kube-scheduler's wording for one node ("node(s) had untolerated taint {gpu: true}",
// "Insufficient nvidia.com/gpu"), as FailedScheduling events count them per reason.
std::string scheduler_reason(const Misfit& m);
// A person's sentence with the numbers ("needs 4 nvidia.com/gpu, 0 free").
std::string describe(const Misfit& m);
const char* to_string(MisfitKind k);

// What a pod asks of a node: its requests, tolerations and pod terms (from `pod`) and its
// node-label requirements in canonical form (label aliases resolved). For a class, the class's
// canonical forms; for a decoded pod, its own (the decoder canonicalises them already).
struct PodNeeds {
  const Pod& pod;
  const Labels& node_selector;
  const std::vector<NodeSelectorTerm>& affinity;
  bool on_demand_only = false;
};
PodNeeds needs_of(const PodClass& c);
PodNeeds needs_of(const Pod& p);

// A node as the check sees it, with what the caller tracks of it.
struct NodeSide {
  const Node& node;
  const Labels& labels;   // canonical (canonical_labels, or the decoder's)
  const Resources& free;  // allocatable minus what is bound, nominated or placed there
  // Pods on the node for the pod terms: bound or nominated ones, and ones placed this pass.
  std::span<const Pod* const> residents = {};
  std::span<const Pod* const> placed = {};
  // Some resident or placed pod has anti-affinity terms; when false and the pod has none either,
  // the pod-term step is skipped (it is the common case and would walk every pod there).
  bool residents_repel = true;
  // Count a launched (InFlight) or registered-not-Ready node as room: the planner's question
  // ("is capacity for this pod here or on its way?"), not a binder's ("bind it now?").
  bool coming_counts = false;
};

// The node-state step alone (removal, cordon, readiness), for callers that drop the nodes no
// pod may use before they look at any pod. static_misfit runs it first.
Misfit node_misfit(const Node& node, bool coming_counts);

// The whole check: static_misfit, then dynamic_misfit. A predicate is one step in one of them.
Misfit misfit(const PodNeeds& pod, const NodeSide& node);
// The steps that depend only on the pod's class and the node (state, labels, capacity type,
// taints), not on what is placed there: callers may decide them once per class and node.
Misfit static_misfit(const PodNeeds& pod, const NodeSide& node);
// The steps that change as pods are placed: free room, then the pods on the node.
Misfit dynamic_misfit(const PodNeeds& pod, const NodeSide& node);

// Every requested resource is available (extended resources a node lacks count as zero).
// Allocation-free: this runs in the inner loops.
bool fits(const Resources& req, const Resources& avail);
// The first requested resource that does not fit, with the numbers (kind None when it fits).
Misfit shortfall(const Resources& req, const Resources& avail);

// How many pods of `req` one node of `alloc` holds: the minimum over requested resources of
// floor(alloc / req). Zero when one does not fit.
std::int64_t pods_per_node(const Resources& req, const Resources& alloc);

// The largest fraction of `alloc` that `req` takes over all requested resources (pods included);
// +infinity when a requested resource is missing.
double dominant_share(const Resources& req, const Resources& alloc);

// nodeSelector and required node affinity of the class (already canonical) against node labels.
bool labels_admit(const PodClass& c, const Labels& labels);
bool labels_admit(const Labels& node_selector, const std::vector<NodeSelectorTerm>& affinity,
                  const Labels& labels);

// Node labels plus the canonical key for every alias key present, so a node labelled by
// Karpenter or an older cluster matches a canonicalised selector.
Labels canonical_labels(const Labels& labels, const std::vector<std::string>& gpu_models);
// Whether canonical_labels would return `labels` unchanged: every alias key present has its
// canonical key present too (canonical_labels never overrides one). No copy, no allocation.
bool labels_are_canonical(const Labels& labels);

// Required anti-affinity on kubernetes.io/hostname, both ways: `incoming` refuses a node with
// `resident`, or `resident` refuses `incoming` (Kubernetes honours existing pods' terms too).
bool anti_affinity_conflict(const Pod& incoming, const Pod& resident);

}  // namespace fitscale::planner
