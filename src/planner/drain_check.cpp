#include "planner/drain_check.h"

namespace fitscale::planner {

DrainCheck check_drain(Time cordoned_at, Time now, const std::vector<const Pod*>& on_node) {
  for (const Pod* p : on_node) {
    if (p->finished() || p->terminating || p->is_daemon() || p->is_mirror()) continue;
    return {DrainStep::GiveBack, "pod " + p->key() + " was bound to it after the cordon"};
  }
  // Times are whole seconds: a loop in the same second as the cordon may have been observed
  // before a binding that raced the cordon reached the watch.
  if (now <= cordoned_at) return {DrainStep::Wait, ""};
  return {DrainStep::Delete, ""};
}

}  // namespace fitscale::planner
