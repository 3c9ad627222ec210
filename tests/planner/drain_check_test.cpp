// The second step of an empty node's removal: deleted only if still empty on a later loop.
#include "planner/drain_check.h"

#include <gtest/gtest.h>

#include "fixtures.h"

namespace fitscale::testing {
namespace {

using planner::check_drain;
using planner::DrainStep;

constexpr Time kCordoned = 1'780'000'000;

Pod bound(const std::string& name, PodPhase phase) {
  Pod p = make_pod(name, 500, kGi);
  p.node_name = "node-a";
  p.phase = phase;
  return p;
}

TEST(DrainCheck, AStillEmptyNodeIsDeletedOnALaterSecondOnly) {
  EXPECT_EQ(check_drain(kCordoned, kCordoned, {}).step, DrainStep::Wait);
  EXPECT_EQ(check_drain(kCordoned, kCordoned + 1, {}).step, DrainStep::Delete);
}

TEST(DrainCheck, APodBoundAfterTheCordonGivesTheNodeBackEvenIfStillPending) {
  // Bound by the scheduler (spec.nodeName set) but not started yet: deleting the node now
  // would fail it, as issue 20's 314 Failed pods did.
  const Pod pending = bound("late", PodPhase::Pending);
  const auto c = check_drain(kCordoned, kCordoned + 10, {&pending});
  EXPECT_EQ(c.step, DrainStep::GiveBack);
  EXPECT_EQ(c.why, "pod team-a/late was bound to it after the cordon");
  const Pod running = bound("late", PodPhase::Running);
  EXPECT_EQ(check_drain(kCordoned, kCordoned, {&running}).step, DrainStep::GiveBack);
}

TEST(DrainCheck, DaemonsAndFinishedPodsLeaveItEmpty) {
  Pod daemon = bound("agent", PodPhase::Running);
  daemon.owner = {"DaemonSet", "agent", "uid-ds"};
  const Pod done = bound("done", PodPhase::Succeeded);
  const Pod failed = bound("crashed", PodPhase::Failed);
  EXPECT_EQ(check_drain(kCordoned, kCordoned + 5, {&daemon, &done, &failed}).step,
            DrainStep::Delete);
}

TEST(DrainCheck, EvictedPodsAreWaitedForUntilGoneOrPastTheGracefulTerminationLimit) {
  Pod evicted = bound("web", PodPhase::Running);
  evicted.owner = {"ReplicaSet", "web-rs", "uid-rs"};
  evicted.terminating = true;
  EXPECT_EQ(check_drain(kCordoned, kCordoned + 5, {&evicted}).step, DrainStep::Wait)
      << "a Terminating pod holds its room (and its grace period) until it is gone";
  EXPECT_EQ(check_drain(kCordoned, kCordoned + planner::kMaxGracefulTerminationS, {&evicted}).step,
            DrainStep::Wait);
  EXPECT_EQ(
      check_drain(kCordoned, kCordoned + planner::kMaxGracefulTerminationS + 1, {&evicted}).step,
      DrainStep::Delete)
      << "one stuck Terminating does not keep the node for ever";
  EXPECT_EQ(check_drain(kCordoned, kCordoned + 5, {}).step, DrainStep::Delete) << "gone";
}

}  // namespace
}  // namespace fitscale::testing
