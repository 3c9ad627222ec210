#include "planner/drain_check.h"

namespace fitscale::planner {

DrainCheck check_drain(Time cordoned_at, Time now, const std::vector<const Pod*>& on_node) {
  bool leaving = false;
  for (const Pod* p : on_node) {
    if (!p->metered()) continue;  // daemon and mirror pods, finished pods: the node is empty
    if (p->terminating) {
      leaving = true;  // evicted by the first step: still holds its room until it is gone
      continue;
    }
    return {DrainStep::GiveBack, "pod " + p->key() + " was bound to it after the cordon"};
  }
  // Times are whole seconds: a loop in the same second as the cordon may have been observed
  // before a binding that raced the cordon reached the watch.
  if (now <= cordoned_at) return {DrainStep::Wait, ""};
  // Evicted pods get their grace period, as cluster-autoscaler gives them up to
  // --max-graceful-termination-sec; one stuck Terminating longer does not keep the node.
  if (leaving && now - cordoned_at <= kMaxGracefulTerminationS) return {DrainStep::Wait, ""};
  return {DrainStep::Delete, ""};
}

}  // namespace fitscale::planner
