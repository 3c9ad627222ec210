#include "planner/reclaim.h"

#include <gtest/gtest.h>

#include "fixtures.h"
#include "model/labels.h"

namespace fitscale {
namespace {

using testing::kGi;
using testing::make_catalog;
using testing::make_node;
using testing::make_pod;

// big: 8 GPUs at $8/h spot ($1 per GPU); small: 1 GPU at $0.25/h. A 1-GPU pod costs four times
// as much in a big node's room as on a node of its own.
Catalog gpu_catalog() {
  return make_catalog(
      {{"big", 64000, 256 * kGi, 8, 8.0, 24.0}, {"small", 8000, 32 * kGi, 1, 0.25, 1.0}},
      {"us-east-1a"});
}

// A big node launched for team-a's 8-GPU job "train8", now running one 1-GPU pod of another job.
Snapshot big_node_left_by_its_job() {
  Snapshot s;
  Node n = make_node("big-1", 64000, 256 * kGi);
  n.allocatable.gpus = 8;
  n.managed = true;
  n.instance_id = "i-1";
  n.instance_type = "big";
  n.capacity_type = CapacityType::Spot;
  n.price_micros_per_hour = 8'000'000;
  n.owner_namespace = "team-a";
  n.owner_job = "train8";
  s.nodes.push_back(n);
  Pod rider = make_pod("rider", 4000, 16 * kGi, 1);
  rider.node_name = "big-1";
  rider.phase = PodPhase::Running;
  s.pods.push_back(rider);
  return s;
}

Pod pending_gpu_pod(const std::string& name, std::int64_t gpus) {
  return make_pod(name, 4000 * gpus, 16 * kGi * gpus, gpus);
}

Policy policy() {
  Policy p = testing::no_budgets();
  p.zones = {"us-east-1a"};
  return p;
}

TEST(Reclaim, ANodeWhoseLaunchJobEndedIsTaintedWhenNoPendingWorkMakesItsRoomWorthKeeping) {
  const Catalog catalog = gpu_catalog();
  Snapshot s = big_node_left_by_its_job();
  // Nothing pending: its 7 free GPUs ($7/h of room) are worth nothing to anybody.
  auto change = planner::decide_reclaim(s, catalog, policy(), 1000);
  ASSERT_EQ(change.taint, std::vector<std::string>{"big-1"});
  EXPECT_TRUE(change.untaint.empty());

  // A 1-GPU pod would cost $0.25/h on a node of its own: 2 x 0.25 is far below $7/h of room.
  s.pods.push_back(pending_gpu_pod("one", 1));
  change = planner::decide_reclaim(s, catalog, policy(), 1000);
  EXPECT_EQ(change.taint, std::vector<std::string>{"big-1"});

  // A 4-GPU pod fits no small node: $4/h on a big one, and 2 x 4 >= 7: the room is its
  // cheapest place, so the node stays open (and the 1-GPU pod counts with it).
  s.pods.push_back(pending_gpu_pod("four", 4));
  change = planner::decide_reclaim(s, catalog, policy(), 1000);
  EXPECT_TRUE(change.taint.empty());
  EXPECT_TRUE(change.untaint.empty());
}

TEST(Reclaim, TheTaintGoesWhenTheNodeBecomesTheCheapestPlaceOrItsJobHasPodsAgain) {
  const Catalog catalog = gpu_catalog();
  Snapshot s = big_node_left_by_its_job();
  s.nodes[0].taints.push_back(
      {std::string(planner::kReclaimTaint), "true", TaintEffect::NoSchedule});
  // Tainted and still not worth it: nothing changes.
  auto change = planner::decide_reclaim(s, catalog, policy(), 1000);
  EXPECT_TRUE(change.empty());

  // Pending work that fills the room at about its price: the taint goes.
  Snapshot worth = s;
  worth.pods.push_back(pending_gpu_pod("four", 4));
  change = planner::decide_reclaim(worth, catalog, policy(), 1000);
  EXPECT_EQ(change.untaint, std::vector<std::string>{"big-1"});

  // Its launch job restarted (its pod is pending again): it must be able to land there.
  Snapshot restarted = s;
  Pod again = pending_gpu_pod("train8-0", 8);
  again.labels[std::string(label::kJob)] = "train8";
  restarted.pods.push_back(again);
  change = planner::decide_reclaim(restarted, catalog, policy(), 1000);
  EXPECT_EQ(change.untaint, std::vector<std::string>{"big-1"});

  // reclaimFactor 0 turns it off: every reclaim taint goes.
  Policy off = policy();
  off.reclaim_factor = 0;
  change = planner::decide_reclaim(s, catalog, off, 1000);
  EXPECT_EQ(change.untaint, std::vector<std::string>{"big-1"});
}

TEST(Reclaim, NodesWhoseJobRunsOrThatFitscaleDidNotLaunchAreNeverTainted) {
  const Catalog catalog = gpu_catalog();
  Snapshot running = big_node_left_by_its_job();
  Pod own = make_pod("train8-0", 4000, 16 * kGi, 1);
  own.labels[std::string(label::kJob)] = "train8";
  own.node_name = "big-1";
  own.phase = PodPhase::Running;
  running.pods.push_back(own);
  EXPECT_TRUE(planner::decide_reclaim(running, catalog, policy(), 1000).empty());

  Snapshot unmanaged = big_node_left_by_its_job();
  unmanaged.nodes[0].managed = false;
  EXPECT_TRUE(planner::decide_reclaim(unmanaged, catalog, policy(), 1000).empty());

  // Full: no room to steer anybody from.
  Snapshot full = big_node_left_by_its_job();
  full.pods[0].requests.gpus = 8;
  EXPECT_TRUE(planner::decide_reclaim(full, catalog, policy(), 1000).empty());
}

TEST(Reclaim, ThePlanDoesNotPlaceOnATaintedNodeSoItLaunchesTheCheapNodeInstead) {
  // What the scheduler sees, the plan sees: a 1-GPU pod that does not tolerate the taint gets
  // its own small node rather than the big node's room.
  const Catalog catalog = gpu_catalog();
  Snapshot s = big_node_left_by_its_job();
  s.nodes[0].taints.push_back(
      {std::string(planner::kReclaimTaint), "true", TaintEffect::NoSchedule});
  Pod one = make_pod("one", 4000, 16 * kGi, 1);
  s.pods.push_back(one);
  const Plan p = plan(s, catalog, policy(), 1000);
  ASSERT_EQ(p.launch.size(), 1u);
  EXPECT_EQ(p.launch[0].instance_type, "small");
  EXPECT_TRUE(p.placements.empty());
}

}  // namespace
}  // namespace fitscale
