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
  s.nodes.push_back(make_node("spare", 4000, 16 * kGi));  // room for web-1 elsewhere
  s.pods.push_back(on("web-1", "idle", "ReplicaSet"));
  s.pods.push_back(on("log-agent", "idle", "DaemonSet"));
  Policy pol;
  pol.empty_ttl_s = 60;
  const Plan p = plan(s, cpu_catalog(), pol, 1312);
  EXPECT_TRUE(p.keep.empty());
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

TEST(ScaleDown, AServicePodThatFitsNowhereElseKeepsItsNodeAndLaunchesNothing) {
  Snapshot s;
  Node n = managed("svc");
  n.empty_since = 0;
  s.nodes.push_back(n);
  Node full = make_node("full", 4000, 16 * kGi);
  s.nodes.push_back(full);
  Pod hog = on("hog", "full", "Job");
  hog.requests.cpu_milli = 3950;
  s.pods.push_back(hog);
  s.pods.push_back(on("web", "svc", "ReplicaSet"));
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 100000);
  EXPECT_TRUE(p.remove.empty());
  EXPECT_TRUE(p.launch.empty());
  ASSERT_EQ(p.keep.size(), 1u);
  EXPECT_EQ(p.keep[0].node, "svc");
  EXPECT_EQ(p.keep[0].reason, "pod team-a/web fits on no other node");
}

TEST(ScaleDown, AServicePodMovesWhenAnotherNodeHasRoomThatItsSelectorAllows) {
  Snapshot s;
  Node n = managed("svc");
  n.empty_since = 0;
  s.nodes.push_back(n);
  Node wrong = make_node("arm", 4000, 16 * kGi);
  wrong.labels["kubernetes.io/arch"] = "arm64";
  s.nodes.push_back(wrong);
  Pod web = on("web", "svc", "ReplicaSet");
  web.node_selector["kubernetes.io/arch"] = "amd64";
  s.pods.push_back(web);
  Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 100000);
  EXPECT_TRUE(p.remove.empty()) << "the only other node does not match the selector";
  ASSERT_EQ(p.keep.size(), 1u);

  Node right = make_node("x86", 4000, 16 * kGi);
  right.labels["kubernetes.io/arch"] = "amd64";
  s.nodes.push_back(right);
  p = plan(s, cpu_catalog(), testing::no_budgets(), 100000);
  ASSERT_EQ(p.remove.size(), 1u);
  EXPECT_EQ(p.remove[0].evict, std::vector<std::string>{"team-a/web"});
  EXPECT_TRUE(p.keep.empty());
  EXPECT_TRUE(p.launch.empty());
}

TEST(ScaleDown, TwoIdleServiceNodesNeverCountOnEachOther) {
  // Each could hold the other's pod, but not both gone: one goes, the one that takes its pod
  // stays.
  Snapshot s;
  for (const char* name : {"svc-a", "svc-b"}) {
    Node n = managed(name);
    n.empty_since = 0;
    s.nodes.push_back(n);
    s.pods.push_back(on(std::string("web-") + name, name, "ReplicaSet"));
  }
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 100000);
  ASSERT_EQ(p.remove.size(), 1u);
  EXPECT_EQ(p.remove[0].node, "svc-a");
  EXPECT_TRUE(p.launch.empty());
}

TEST(ScaleDown, RoomTakenByThisPlansPendingPodsIsNotRoomForEvictedOnes) {
  Snapshot s;
  Node n = managed("svc");
  n.empty_since = 0;
  s.nodes.push_back(n);
  s.nodes.push_back(make_node("other", 4000, 16 * kGi));
  s.pods.push_back(make_pod("pending", 3950, kGi));  // placed on "other" by this plan
  s.pods.push_back(on("web", "svc", "ReplicaSet"));
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 100000);
  EXPECT_EQ(p.placements.at("team-a/pending"), "other");
  EXPECT_TRUE(p.remove.empty());
  EXPECT_EQ(p.keep.size(), 1u);
}

TEST(ScaleDown, ATerminatingBatchPodPinsItsReadyNodeUntilItIsGone) {
  Snapshot s;
  Node n = managed("idle");
  n.empty_since = 0;
  s.nodes.push_back(n);
  Pod going = on("train", "idle", "Job");
  going.terminating = true;
  s.pods.push_back(going);
  EXPECT_TRUE(plan(s, cpu_catalog(), Policy{}, 100000).remove.empty())
      << "it may be checkpointing in its grace period";
  s.pods.clear();
  const Plan p = plan(s, cpu_catalog(), Policy{}, 100000);
  ASSERT_EQ(p.remove.size(), 1u);
  EXPECT_TRUE(p.remove[0].evict.empty());
}

TEST(ScaleDown, ABatchPodInPhaseUnknownPinsItsReadyNode) {
  Snapshot s;
  Node n = managed("idle");
  n.empty_since = 0;
  s.nodes.push_back(n);
  Pod unknown = on("train", "idle", "Job");
  unknown.phase = PodPhase::Unknown;
  s.pods.push_back(unknown);
  EXPECT_TRUE(plan(s, cpu_catalog(), Policy{}, 100000).remove.empty());
}

TEST(ScaleDown, ANodeNotReadyPastTheLimitGoesWithItsPodsAndSaysSinceWhen) {
  Snapshot s;
  Node n = managed("dead");
  n.state = NodeState::Registered;
  n.launched_at = 0;  // a day before it died
  n.not_ready_since = 86400;
  s.nodes.push_back(n);
  s.pods.push_back(on("train", "dead", "Job"));  // its phase never changes: the kubelet is gone
  Pod stuck = on("web", "dead", "ReplicaSet");
  stuck.terminating = true;
  s.pods.push_back(stuck);
  Policy pol;
  pol.not_ready_after_s = 1200;
  EXPECT_TRUE(plan(s, cpu_catalog(), pol, 86400 + 1200).remove.empty())
      << "NotReady for 20m exactly, not past it; launched a day ago is no reason";
  const Plan p = plan(s, cpu_catalog(), pol, 86400 + 1260);
  ASSERT_EQ(p.remove.size(), 1u);
  EXPECT_EQ(p.remove[0].kind, RemoveReason::NotReady);
  EXPECT_EQ(p.remove[0].reason,
            "NotReady since 1970-01-02T00:00:00Z (21m, scaleDown.notReadyAfter 20m)");
  EXPECT_TRUE(p.remove[0].evict.empty());
}

TEST(ScaleDown, ARegisteredNodeWithNoReadyConditionYetIsJudgedByTheRegisterTimeout) {
  Snapshot s;
  Node n = managed("booting");
  n.state = NodeState::Registered;
  n.launched_at = 0;
  s.nodes.push_back(n);
  Policy pol;
  pol.register_timeout_s = 900;
  const Plan p = plan(s, cpu_catalog(), pol, 1000);
  ASSERT_EQ(p.remove.size(), 1u);
  EXPECT_EQ(p.remove[0].kind, RemoveReason::NeverRegistered);
  EXPECT_EQ(p.remove[0].reason, "not Ready 16m40s after launch (timeout 15m)");
}

TEST(ScaleDown, ANodeEmptySoonAfterItsLaunchWaitsOutTheLaunchDelay) {
  // A burst's node may be Ready and empty for minutes before kube-scheduler reaches its pods.
  Snapshot s;
  Node n = managed("fresh");
  n.launched_at = 1000;
  n.empty_since = 1100;
  s.nodes.push_back(n);
  Policy pol;
  pol.empty_ttl_s = 60;
  pol.delay_after_launch_s = 300;
  EXPECT_TRUE(plan(s, cpu_catalog(), pol, 1299).remove.empty()) << "within 300s of its launch";
  const Plan later = plan(s, cpu_catalog(), pol, 1300);
  ASSERT_EQ(later.remove.size(), 1u);
  EXPECT_EQ(later.remove[0].reason, "empty for 200s");
}

TEST(ScaleDown, AnEmptyNodeStaysWhileAPodTheSchedulerHasNotJudgedFitsOnIt) {
  Snapshot s;
  Node n = managed("idle");
  n.empty_since = 1000;
  s.nodes.push_back(n);
  Pod unjudged = make_pod("queued", 1000, kGi);
  unjudged.scheduler_verdict = SchedulerVerdict::NotYet;
  Pod too_big = make_pod("huge", 8000, kGi);  // fits no 4-CPU node: keeps nothing alive
  too_big.scheduler_verdict = SchedulerVerdict::NotYet;
  s.pods = {too_big, unjudged};
  Policy pol = testing::no_budgets();
  pol.empty_ttl_s = 60;
  const Plan p = plan(s, cpu_catalog(), pol, 2000);
  EXPECT_TRUE(p.remove.empty());
  ASSERT_EQ(p.keep.size(), 1u);
  EXPECT_EQ(p.keep[0].node, "idle");
  EXPECT_EQ(p.keep[0].reason, "pod team-a/queued waits for the scheduler and fits on it");

  s.pods = {too_big};
  const Plan gone = plan(s, cpu_catalog(), pol, 2000);
  ASSERT_EQ(gone.remove.size(), 1u) << "a waiting pod that cannot fit there keeps nothing";
  EXPECT_EQ(gone.remove[0].node, "idle");
}

TEST(Pending, GatedNominatedAndNotYetMarkedPodsLaunchNothing) {
  Snapshot s;
  Pod gated = make_pod("gated", 1000, kGi);
  gated.scheduling_gates = {"kueue.x-k8s.io/admission"};
  Pod nominated = make_pod("nominated", 1000, kGi);
  nominated.nominated_node = "somewhere";
  Pod fresh = make_pod("fresh", 1000, kGi);
  fresh.scheduler_verdict = SchedulerVerdict::NotYet;
  s.pods = {gated, nominated, fresh};
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 100);
  EXPECT_TRUE(p.launch.empty());
  EXPECT_TRUE(p.unschedulable.empty());
  s.pods.push_back(make_pod("unschedulable", 1000, kGi));
  EXPECT_EQ(plan(s, cpu_catalog(), testing::no_budgets(), 100).launch.size(), 1u);
}

TEST(Pending, ANominatedPodTakesItsNodesRoom) {
  Snapshot s;
  s.nodes.push_back(make_node("n1", 4000, 16 * kGi));
  Pod nominated = make_pod("preemptor", 3000, kGi);
  nominated.nominated_node = "n1";
  s.pods.push_back(nominated);
  s.pods.push_back(make_pod("next", 3000, kGi));
  const Plan p = plan(s, cpu_catalog(), testing::no_budgets(), 100);
  EXPECT_EQ(p.placements.count("team-a/next"), 0u) << "n1's room is reserved for the preemptor";
  ASSERT_EQ(p.launch.size(), 1u);
  EXPECT_EQ(p.launch[0].pods, std::vector<std::string>{"team-a/next"});
}

}  // namespace
}  // namespace fitscale

namespace fitscale {
namespace {

// Issue 15 item 2: a pool's scaleDown policy decides when its empty nodes go.
TEST(ScaleDown, APoolsScaleDownPolicyDecidesWhenItsEmptyNodesGo) {
  Catalog c = testing::make_catalog({{"m5.xlarge", 4000, 16 * testing::kGi, 0, 0.05, 0.192}});
  Pool slow;
  slow.name = "slow";
  slow.scale_down.empty_after = 600;
  Pool warm;
  warm.name = "warm";
  warm.scale_down.when_empty = false;
  c.pools = {slow, warm};
  Snapshot s;
  for (const char* pool : {"slow", "warm", "gone"}) {
    Node n = testing::make_node(std::string("n-") + pool, 4000, 16 * testing::kGi);
    n.managed = true;
    n.instance_id = std::string("i-") + pool;
    n.labels["fitscale.io/pool"] = pool;
    n.empty_since = 1000;
    s.nodes.push_back(n);
  }
  Policy pol;
  pol.empty_ttl_s = 60;
  // 5 minutes empty: only the node of a pool no longer configured goes (the policy's 60 s).
  Plan p = plan(s, c, pol, 1300);
  ASSERT_EQ(p.remove.size(), 1u);
  EXPECT_EQ(p.remove[0].node, "n-gone");
  // 11 minutes: the slow pool's too; the warm pool keeps its empty node.
  p = plan(s, c, pol, 1660);
  std::vector<std::string> removed;
  for (const auto& r : p.remove) removed.push_back(r.node);
  EXPECT_EQ(removed, (std::vector<std::string>{"n-slow", "n-gone"}));
}

// Owned hardware (docs/clouds.md) is never proposed, whatever would remove a cloud node: empty
// past the TTL, an interruption notice, NotReady, never registered.
TEST(ScaleDown, OwnedHardwareIsNeverProposedForRemoval) {
  Policy pol;
  pol.empty_ttl_s = 60;
  pol.not_ready_after_s = 60;
  pol.register_timeout_s = 60;
  for (int variant = 0; variant < 3; ++variant) {
    Snapshot s;
    Node n = managed("rack-1");
    n.owned = true;
    n.launched_at = 1;
    n.empty_since = 1000;
    if (variant == 1) n.interruption_notice = true;
    if (variant == 2) {
      n.state = NodeState::Registered;
      n.not_ready_since = 1000;
    }
    s.nodes.push_back(n);
    EXPECT_TRUE(plan(s, cpu_catalog(), pol, 5000).remove.empty()) << "variant " << variant;
    s.nodes[0].owned = false;  // the same node, launched by fitscale: removed
    EXPECT_EQ(plan(s, cpu_catalog(), pol, 5000).remove.size(), 1u) << "variant " << variant;
  }
}

}  // namespace
}  // namespace fitscale
