#pragma once
// The second step of removing an empty node. An empty node is cordoned first and deleted on a
// later loop only if it is still empty then: a pod kube-scheduler bound to it between the
// snapshot that found it empty and the cordon would otherwise fail with its node (issue 20,
// "a removal never makes a pod fail"). cluster-autoscaler does the same in two steps (taint,
// then re-check and delete).
#include <string>
#include <vector>

#include "model/pod.h"
#include "model/time.h"

namespace fitscale::planner {

// The NoSchedule taint fitscale puts on an empty node with the cordon (value: the Unix time of
// the cordon), as cluster-autoscaler puts ToBeDeletedByClusterAutoscaler: it tells a person
// why the node is cordoned, and a fitscale started after a restart between the two steps which
// cordoned nodes are its own to finish or give back.
inline constexpr const char* kToBeDeletedTaint = "fitscale.io/to-be-deleted";

// How long the second step waits for the pods the first step evicted to go (they hold their
// room while Terminating): cluster-autoscaler's --max-graceful-termination-sec default.
inline constexpr Seconds kMaxGracefulTerminationS = 600;

enum class DrainStep {
  Delete,    // still empty, looked at on a later loop than the cordon: delete it
  Wait,      // cordoned this very second: a binding made just before may not be seen yet
  GiveBack,  // a pod landed on it: uncordon it, it is no longer a candidate
};

struct DrainCheck {
  DrainStep step = DrainStep::Wait;
  std::string why;  // for GiveBack, the pod that landed ("ns/name bound to it after the cordon")
};

// `on_node`: every pod of the latest snapshot whose spec.nodeName is the node, whatever its
// phase (a pod bound but still Pending counts). Daemon and mirror pods and pods that finished
// leave the node empty; pods being deleted (the evictions of the first step) are waited for,
// up to kMaxGracefulTerminationS after the cordon.
DrainCheck check_drain(Time cordoned_at, Time now, const std::vector<const Pod*>& on_node);

}  // namespace fitscale::planner
