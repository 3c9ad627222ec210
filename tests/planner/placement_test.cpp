// Pending pods go to free room on existing nodes first, then in-flight ones, before anything
// is launched; selectors, taints and resources are honoured there too.
#include <gtest/gtest.h>

#include "fixtures.h"

namespace fitscale {
namespace {

using testing::kGi;
using testing::launched;
using testing::make_catalog;
using testing::make_node;
using testing::make_pod;

Catalog cpu_catalog() { return make_catalog({{"m5.xlarge", 4000, 16 * kGi, 0, 0.05, 0.192}}); }

TEST(Placement, UsesFreeRoomOnAReadyNodeBeforeLaunching) {
  Snapshot s;
  s.nodes.push_back(make_node("node-1", 4000, 16 * kGi));
  Pod running = make_pod("running", 3000, 4 * kGi);
  running.node_name = "node-1";
  running.phase = PodPhase::Running;
  s.pods.push_back(running);
  s.pods.push_back(make_pod("small", 500, kGi));   // fits in the 1000m left
  s.pods.push_back(make_pod("large", 2000, kGi));  // does not
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 0);
  EXPECT_EQ(p.placements.at("team-a/small"), "node-1");
  EXPECT_EQ(p.placements.count("team-a/large"), 0u);
  ASSERT_EQ(launched(p), 1);
  EXPECT_EQ(p.launch[0].pods, std::vector<std::string>{"team-a/large"});
}

TEST(Placement, BoundPodsUseUpTheirOwnNodeAmongManyUnsortedOnes) {
  // 100 nodes listed out of name order, every one full but node-37: the pending pod must land
  // there, which it does only if each bound pod was charged to its own node.
  Snapshot s;
  for (int i = 99; i >= 0; --i) {
    const std::string name = "node-" + std::to_string(i);
    s.nodes.push_back(make_node(name, 4000, 16 * kGi));
    if (i == 37) continue;
    Pod full = make_pod("full-" + std::to_string(i), 4000, kGi);
    full.node_name = name;
    full.phase = PodPhase::Running;
    s.pods.push_back(full);
  }
  s.pods.push_back(make_pod("pending", 1000, kGi));
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 0);
  EXPECT_EQ(p.placements.at("team-a/pending"), "node-37");
  EXPECT_EQ(launched(p), 0);
}

TEST(Placement, InFlightCapacityServesThePodsItWasLaunchedForSoNothingLaunchesTwice) {
  Snapshot s;
  Node n = make_node("i-0abc", 4000, 16 * kGi, "us-east-1a", NodeState::InFlight);
  n.managed = true;
  n.launched_at = 100;
  s.nodes.push_back(n);
  for (int i = 0; i < 3; ++i) s.pods.push_back(make_pod("p" + std::to_string(i), 1000, kGi));
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 160);
  EXPECT_EQ(launched(p), 0);
  EXPECT_EQ(p.placements.size(), 3u);
  EXPECT_EQ(p.placements.at("team-a/p0"), "i-0abc");
  EXPECT_TRUE(p.remove.empty());
}

TEST(Placement, ReadyNodesAreFilledBeforeInFlightOnes) {
  Snapshot s;
  Node flying = make_node("a-inflight", 4000, 16 * kGi, "us-east-1a", NodeState::InFlight);
  flying.managed = true;
  flying.launched_at = 100;
  s.nodes.push_back(flying);
  s.nodes.push_back(make_node("z-ready", 4000, 16 * kGi));
  s.pods.push_back(make_pod("p", 1000, kGi));
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 120);
  EXPECT_EQ(p.placements.at("team-a/p"), "z-ready");
}

TEST(Placement, AnInstanceThatNeverRegisteredIsNotWaitedForButRemoved) {
  Snapshot s;
  Node n = make_node("i-late", 4000, 16 * kGi, "us-east-1a", NodeState::InFlight);
  n.managed = true;
  n.instance_id = "i-late";
  n.launched_at = 0;
  s.nodes.push_back(n);
  s.pods.push_back(make_pod("p", 1000, kGi));
  Policy pol = testing::no_budgets();
  pol.register_timeout_s = 900;
  const Plan p = plan(s, cpu_catalog(), pol, 1000);
  EXPECT_EQ(launched(p), 1);
  ASSERT_EQ(p.remove.size(), 1u);
  EXPECT_EQ(p.remove[0].kind, RemoveReason::NeverRegistered);
  EXPECT_EQ(p.remove[0].reason, "not registered 16m40s after launch (timeout 15m)");
}

TEST(Placement, TaintsKeepPodsOffUnlessTolerated) {
  Snapshot s;
  Node gpu = make_node("gpu-node", 8000, 32 * kGi);
  gpu.taints.push_back({"nvidia.com/gpu", "true", TaintEffect::NoSchedule});
  s.nodes.push_back(gpu);
  s.pods.push_back(make_pod("plain", 1000, kGi));
  Pod tolerant = make_pod("tolerant", 1000, kGi);
  tolerant.tolerations.push_back({"nvidia.com/gpu", true, "", std::nullopt});
  s.pods.push_back(tolerant);
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 0);
  EXPECT_EQ(p.placements.at("team-a/tolerant"), "gpu-node");
  EXPECT_EQ(p.placements.count("team-a/plain"), 0u);
  EXPECT_EQ(launched(p), 1);
}

TEST(Placement, PreferNoScheduleTaintDoesNotBlock) {
  Snapshot s;
  Node n = make_node("soft", 8000, 32 * kGi);
  n.taints.push_back({"dedicated", "x", TaintEffect::PreferNoSchedule});
  s.nodes.push_back(n);
  s.pods.push_back(make_pod("p", 1000, kGi));
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 0);
  EXPECT_EQ(p.placements.at("team-a/p"), "soft");
}

TEST(Placement, NodeSelectorAndRequiredAffinityAreHonoured) {
  Snapshot s;
  Node ssd = make_node("ssd", 8000, 32 * kGi);
  ssd.labels["disktype"] = "ssd";
  s.nodes.push_back(ssd);
  s.nodes.push_back(make_node("hdd", 8000, 32 * kGi));
  Pod wants_ssd = make_pod("wants-ssd", 1000, kGi);
  wants_ssd.node_selector["disktype"] = "ssd";
  s.pods.push_back(wants_ssd);
  Pod not_ssd = make_pod("not-ssd", 1000, kGi);
  not_ssd.required_node_affinity.push_back({{{"disktype", SelectorOp::NotIn, {"ssd"}}}});
  s.pods.push_back(not_ssd);
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 0);
  EXPECT_EQ(p.placements.at("team-a/wants-ssd"), "ssd");
  EXPECT_EQ(p.placements.at("team-a/not-ssd"), "hdd");
}

TEST(Placement, AntiAffinityWithARunningPodKeepsTheNewOneOff) {
  Snapshot s;
  s.nodes.push_back(make_node("n1", 8000, 32 * kGi));
  Pod running = make_pod("db-0", 500, kGi);
  running.labels["app"] = "db";
  running.node_name = "n1";
  running.phase = PodPhase::Running;
  s.pods.push_back(running);
  Pod next = make_pod("db-1", 500, kGi);
  next.labels["app"] = "db";
  LabelSelector sel;
  sel.match_labels["app"] = "db";
  next.anti_affinity_hostname.push_back(sel);
  s.pods.push_back(next);
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 0);
  EXPECT_EQ(p.placements.count("team-a/db-1"), 0u);
  EXPECT_EQ(launched(p), 1);
}

TEST(Placement, AntiAffinityWithAPodPlacedInTheSamePlanKeepsTheNextOneOff) {
  // n1 has room for both replicas; the second may not join the first one this plan put there.
  Snapshot s;
  s.nodes.push_back(make_node("n1", 8000, 32 * kGi));
  for (const char* name : {"db-0", "db-1"}) {
    Pod p = make_pod(name, 500, kGi);
    p.labels["app"] = "db";
    LabelSelector sel;
    sel.match_labels["app"] = "db";
    p.anti_affinity_hostname.push_back(sel);
    s.pods.push_back(p);
  }
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 0);
  EXPECT_EQ(p.placements.size(), 1u);
  EXPECT_EQ(launched(p), 1);
}

TEST(Placement, ExtendedResourceTheNodeLacksIsNeverFree) {
  Snapshot s;
  s.nodes.push_back(make_node("n1", 8000, 32 * kGi));
  Pod p = make_pod("fpga", 1000, kGi);
  p.requests.extended.push_back({"example.com/fpga", 1});
  s.pods.push_back(p);
  const Plan out = plan(s, cpu_catalog(), testing::no_budgets(), 0);
  EXPECT_TRUE(out.placements.empty());
  EXPECT_EQ(launched(out), 0);
}

TEST(Placement, GangPlacedWholeOnExistingNodesOfOneZone) {
  Snapshot s;
  s.nodes.push_back(make_node("a1", 4000, 16 * kGi, "us-east-1a"));
  s.nodes.push_back(make_node("b1", 4000, 16 * kGi, "us-east-1b"));
  s.nodes.push_back(make_node("b2", 4000, 16 * kGi, "us-east-1b"));
  for (int i = 0; i < 2; ++i) {
    Pod p = make_pod("g-" + std::to_string(i), 3000, kGi);
    p.gang = Gang{"g", 2};
    s.pods.push_back(p);
  }
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 0);
  ASSERT_EQ(p.placements.size(), 2u);
  EXPECT_EQ(p.placements.at("team-a/g-0").substr(0, 1), "b");
  EXPECT_EQ(p.placements.at("team-a/g-1").substr(0, 1), "b");
  EXPECT_EQ(launched(p), 0);
}

}  // namespace
}  // namespace fitscale
