#pragma once
// The controller's own writes coming back to it (issue 18 item 1). The reclaim taint is written
// before the plan, and the plan is made with the snapshot as the write leaves it; but the write
// moves the cluster's generation (at once in an in-process view, when its watch event arrives in
// a Kubernetes informer), so the next loop planned again for a change the controller made
// itself and found nothing new: with a backlog held by a cap, every taint write cost a second
// plan of every pending pod. A view cannot say *what* moved, so the loop keeps the view its plan
// was made from, with its own taint writes applied, and a later loop whose cluster generation
// moved (and nothing else: loop_work.h) compares what it observes with it. The same nodes, pods,
// disruption budgets and undecodable pods mean the plan's inputs did not change: nothing to
// plan. Only for a view that is observed (copied); a lent one (the simulator's) moves only
// between loops and absorbs its own writes whole (ControllerOptions::synchronous_world).
#include <optional>

#include "controller/interfaces.h"

namespace fitscale {

class OwnWriteEcho {
 public:
  // The last plan was made from `view` (its writes applied): what an echo looks like.
  void expect(ClusterState view) { expected_ = std::move(view); }
  // A plan made from another view, or writes that may not all have landed: no echo to expect.
  void forget() { expected_.reset(); }
  bool expecting() const { return expected_.has_value(); }
  // `observed` is exactly the view the last plan was made from.
  bool is_echo(const ClusterState& observed) const;

 private:
  std::optional<ClusterState> expected_;
};

}  // namespace fitscale
