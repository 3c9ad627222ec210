// Which nodes a plan removes, and which it must never touch.
#include <gtest/gtest.h>

#include "fixtures.h"

namespace fitscale {
namespace {

using testing::kGi;
using testing::make_catalog;
using testing::make_node;
using testing::make_pod;

Catalog cpu_catalog() { return make_catalog({{"m5.xlarge", 4000, 16 * kGi, 0, 0.05, 0.192}}); }

Node managed(const std::string& name) {
  Node n = make_node(name, 4000, 16 * kGi);
  n.managed = true;
  n.instance_id = "i-" + name;
  return n;
}

Pod on(const std::string& name, const std::string& node, const std::string& owner_kind) {
  Pod p = make_pod(name, 100, kGi);
  p.owner = {owner_kind, name, "u"};
  p.node_name = node;
  p.phase = PodPhase::Running;
  return p;
}

TEST(ScaleDown, EmptyNodePastTheTtlIsRemovedAndItsEvictablePodsListed) {
  Snapshot s;
  Node n = managed("idle");
  n.empty_since = 1000;
  s.nodes.push_back(n);
  s.pods.push_back(on("web-1", "idle", "ReplicaSet"));
  s.pods.push_back(on("log-agent", "idle", "DaemonSet"));
  Policy pol;
  pol.empty_ttl_s = 60;
  const Plan p = plan(s, cpu_catalog(), pol, 1312);
  ASSERT_EQ(p.remove.size(), 1u);
  EXPECT_EQ(p.remove[0].node, "idle");
  EXPECT_EQ(p.remove[0].instance_id, "i-idle");
  EXPECT_EQ(p.remove[0].kind, RemoveReason::Empty);
  EXPECT_EQ(p.remove[0].reason, "empty for 312s");
  EXPECT_EQ(p.remove[0].evict, std::vector<std::string>{"team-a/web-1"});
}

TEST(ScaleDown, ADrainBlockedByADisruptionBudgetIsProposedAgainUntilItFinishes) {
  // The controller cordoned this node and an eviction was refused (HTTP 429): the node is
  // Deleting. Every later plan must propose it again, or the drain never completes.
  Snapshot s;
  Node n = managed("draining");
  n.state = NodeState::Deleting;
  n.unschedulable = true;
  n.empty_since = 1000;
  s.nodes.push_back(n);
  s.pods.push_back(on("web-1", "draining", "ReplicaSet"));
  Policy pol;
  const Plan p = plan(s, cpu_catalog(), pol, 1005);
  ASSERT_EQ(p.remove.size(), 1u);
  EXPECT_EQ(p.remove[0].node, "draining");
  EXPECT_EQ(p.remove[0].evict, std::vector<std::string>{"team-a/web-1"});
}

TEST(ScaleDown, EmptyButWithinTheTtlStays) {
  Snapshot s;
  Node n = managed("idle");
  n.empty_since = 1000;
  s.nodes.push_back(n);
  Policy pol;
  pol.empty_ttl_s = 60;
  EXPECT_TRUE(plan(s, cpu_catalog(), pol, 1030).remove.empty());
}

TEST(ScaleDown, NeverRemovesANodeRunningABatchOrDoNotDisruptPod) {
  Snapshot s;
  for (const char* name : {"batch", "dnd", "bare"}) {
    Node n = managed(name);
    n.empty_since = 0;  // even if the controller's bookkeeping says empty
    n.interruption_notice = std::string(name) == "bare";
    s.nodes.push_back(n);
  }
  s.pods.push_back(on("train", "batch", "Job"));
  Pod dnd = on("cache", "dnd", "ReplicaSet");
  dnd.annotations["karpenter.sh/do-not-disrupt"] = "true";
  s.pods.push_back(dnd);
  s.pods.push_back(on("bare-pod", "bare", ""));
  EXPECT_TRUE(plan(s, cpu_catalog(), Policy{}, 100000).remove.empty());
}

TEST(ScaleDown, UnmanagedNodesAreNeverRemoved) {
  Snapshot s;
  Node n = make_node("theirs", 4000, 16 * kGi);
  n.empty_since = 0;
  s.nodes.push_back(n);
  EXPECT_TRUE(plan(s, cpu_catalog(), Policy{}, 100000).remove.empty());
}

TEST(ScaleDown, ANodeThatJustReceivedAPendingPodStays) {
  Snapshot s;
  Node n = managed("idle");
  n.empty_since = 0;
  s.nodes.push_back(n);
  s.pods.push_back(make_pod("new", 500, kGi));
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 100000);
  EXPECT_EQ(p.placements.at("team-a/new"), "idle");
  EXPECT_TRUE(p.remove.empty());
  EXPECT_TRUE(p.launch.empty());
}

TEST(ScaleDown, OfSeveralIdleNodesOnlyTheOnesThatReceivedPodsStay) {
  Snapshot s;
  for (const char* name : {"idle-c", "idle-a", "idle-d", "idle-b"}) {
    Node n = managed(name);
    n.empty_since = 0;
    s.nodes.push_back(n);
  }
  // One per node; nodes are filled by name, so idle-a and idle-b receive them.
  s.pods.push_back(make_pod("big-1", 3000, kGi));
  s.pods.push_back(make_pod("big-2", 3000, kGi));
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 100000);
  EXPECT_EQ(p.placements.at("team-a/big-1"), "idle-a");
  EXPECT_EQ(p.placements.at("team-a/big-2"), "idle-b");
  std::vector<std::string> removed;
  for (const RemoveDecision& d : p.remove) removed.push_back(d.node);
  EXPECT_EQ(removed, (std::vector<std::string>{"idle-c", "idle-d"}));  // in snapshot order
}

TEST(ScaleDown, InterruptedNodeIsRemovedWhenNothingPinsIt) {
  Snapshot s;
  Node n = managed("reclaimed");
  n.interruption_notice = true;
  s.nodes.push_back(n);
  s.pods.push_back(on("web", "reclaimed", "ReplicaSet"));
  const Plan p = plan(s, cpu_catalog(), Policy{}, 10);
  ASSERT_EQ(p.remove.size(), 1u);
  EXPECT_EQ(p.remove[0].kind, RemoveReason::Interrupted);
  EXPECT_EQ(p.remove[0].evict, std::vector<std::string>{"team-a/web"});
}

}  // namespace
}  // namespace fitscale
