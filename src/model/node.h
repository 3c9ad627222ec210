#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/labels.h"
#include "model/pod.h"
#include "model/resources.h"
#include "model/taint.h"
#include "model/time.h"

namespace fitscale {

// Where a node is in fitscale's lifecycle: launched -> registered -> ready -> removed.
enum class NodeState {
  InFlight,    // instance launched, no Node object yet
  Registered,  // Node exists, not Ready
  Ready,
  Deleting,  // cordoned/draining by fitscale
};
const char* to_string(NodeState s);

// A node as the planner sees it: a Kubernetes Node merged with the cloud instance behind it
// (either half may be missing: an in-flight instance has no Node; a node fitscale did not
// launch has no instance).
struct Node {
  std::string name;         // Node name; for an in-flight instance, its instance id
  std::string provider_id;  // aws:///us-east-1a/i-0123...
  Labels labels;
  std::vector<Taint> taints;
  Resources allocatable;
  NodeState state = NodeState::Ready;
  bool unschedulable = false;  // spec.unschedulable (cordoned)
  Time created = 0;            // Node creation, or instance launch for in-flight ones
  // When the Ready condition last changed, for a registered node that is not Ready (status
  // False or Unknown): since when it is NotReady. nullopt when Ready or never reported.
  std::optional<Time> not_ready_since;

  // Set when fitscale launched the instance behind this node.
  bool managed = false;
  std::string instance_id;
  std::string instance_type;
  std::string zone;
  CapacityType capacity_type = CapacityType::OnDemand;
  std::int64_t price_micros_per_hour = 0;
  std::string owner_namespace;  // the namespace whose job caused the launch (idle cost owner)
  std::string owner_job;
  Time launched_at = 0;
  // Since when the node has run no pod that pins it (tracked by the controller): batch pods
  // (a Job's or a bare pod) and do-not-disrupt pods pin a node; daemonset, mirror and
  // evictable pods (e.g. a ReplicaSet's) do not. nullopt while pinned.
  std::optional<Time> empty_since;
  bool interruption_notice = false;  // spot instance marked for reclamation
  // Registered, but its device plugin has not reported the GPUs its instance type has (the
  // Node's nvidia.com/gpu allocatable is 0 or absent): `allocatable` carries the offering's
  // GPUs, so GPU pods count it as coming capacity (not launched for again) and binders do not
  // bind them to it yet (planner/predicates.h).
  bool gpus_unreported = false;
  // Owned hardware (a static provider's node, docs/clouds.md): metered, never removed.
  bool owned = false;
  // Every field: a view the controller observed again is the one it planned from
  // (controller/own_write_echo.h).
  bool operator==(const Node&) const = default;
};

// The one rule for what fitscale may ever remove (scale-down chooses from these; the controller
// checks again before it deletes a Node or terminates an instance): a node it launched, and not
// the team's own hardware, which is at most left cordoned.
inline bool may_remove(const Node& n) { return n.managed && !n.owned; }

}  // namespace fitscale
