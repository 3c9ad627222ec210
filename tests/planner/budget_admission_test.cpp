// Budget admission inside the planner (issue 4): refused jobs launch nothing, decisions are
// atomic within one plan, and every refusal says why in dollars.
#include <gtest/gtest.h>

#include "fixtures.h"

namespace fitscale {
namespace {

using testing::kGi;
using testing::launched;
using testing::make_catalog;
using testing::make_pod;
using testing::reason_for;

// p3.16xlarge only, on-demand $24.48/h, spot $7.344/h, 8 V100.
Catalog gpu_catalog() {
  return make_catalog({{"p3.16xlarge", 64000, 488 * kGi, 8, 7.344, 24.48, "V100"}});
}

Pod job_pod(const std::string& job, int i, std::int64_t gpus,
            const std::string& ns = "research-a") {
  Pod p = make_pod(job + "-" + std::to_string(i), 8000, 60 * kGi, gpus, ns);
  p.owner = {"Job", job, "uid-" + job};
  return p;
}

TEST(BudgetAdmission, TheInternsTenThousandGpuJobIsRefusedByDefaultAndLaunchesNothing) {
  Snapshot s;
  for (int i = 0; i < 1250; ++i) s.pods.push_back(job_pod("intern", i, 8, "interns"));
  const Plan p = plan(s, gpu_catalog(), Policy{}, 0);  // safe default budgets
  EXPECT_TRUE(p.launch.empty());
  EXPECT_EQ(p.usd_per_hour, 0);
  ASSERT_EQ(p.unschedulable.size(), 1250u);
  for (const auto& u : p.unschedulable) {
    EXPECT_EQ(u.kind, UnschedulableKind::BudgetRefused);
    EXPECT_EQ(u.job, "intern");
  }
  // 1,250 spot p3.16xlarge = $9,180/h; x 24h (default maxRuntime) = $220,320.
  EXPECT_EQ(
      p.unschedulable[0].reason,
      "namespace interns: job needs $9,180/h × 24h = $220,320 worst case; usdPerJob is $5,000 "
      "($215,320 over)");
}

TEST(BudgetAdmission, AnOrdinaryEightGpuJobPassesTheDefaults) {
  Snapshot s;
  s.pods.push_back(job_pod("train", 0, 8));
  const Plan p = plan(s, gpu_catalog(), Policy{}, 0);
  EXPECT_EQ(launched(p), 1);
  EXPECT_TRUE(p.unschedulable.empty());
}

TEST(BudgetAdmission, TwoJobsThatFitAloneButNotTogetherNeverBothLaunch) {
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.namespaces["research-a"].usd_per_hour = 10;  // one node is $7.344/h
  Snapshot s;
  Pod older = job_pod("older", 0, 8);
  older.created = 100;
  Pod newer = job_pod("newer", 0, 8);
  newer.created = 200;
  s.pods.push_back(newer);
  s.pods.push_back(older);

  // Each alone fits.
  for (const Pod& only : {older, newer}) {
    Snapshot one;
    one.pods.push_back(only);
    EXPECT_EQ(launched(plan(one, gpu_catalog(), pol, 0)), 1);
  }
  // Together: the older one launches, the newer one waits with the numbers.
  const Plan p = plan(s, gpu_catalog(), pol, 0);
  EXPECT_EQ(launched(p), 1);
  ASSERT_EQ(p.launch[0].pods, std::vector<std::string>{"research-a/older-0"});
  const auto* u = reason_for(p, "research-a/newer-0");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->kind, UnschedulableKind::BudgetWait);
  // Issue 12, item 6: it says what must free up, in numbers that stay the same from loop to loop.
  EXPECT_EQ(u->reason,
            "namespace research-a: job needs $7.34/h; it waits for $7.34/h of the namespace's "
            "usdPerHour cap of $10.00/h to free up");
}

// One running p3.16xlarge spot node of research-a ($7.344/h), and a pending 8-GPU job there.
Snapshot one_node_and_a_job() {
  Snapshot s;
  Node n = testing::make_node("busy", 64000, 488 * kGi);
  n.managed = true;
  n.owner_namespace = "research-a";
  n.price_micros_per_hour = 7'344'000;
  n.allocatable.gpus = 8;
  s.nodes.push_back(n);
  Pod running = job_pod("running", 0, 8);
  running.node_name = "busy";
  running.phase = PodPhase::Running;
  s.pods.push_back(running);
  s.pods.push_back(job_pod("next", 0, 8));
  return s;
}

TEST(BudgetAdmission, RunningInstancesCountAgainstTheHourlyCap) {
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.namespaces["research-a"].usd_per_hour = 10;
  const Plan p = plan(one_node_and_a_job(), gpu_catalog(), pol, 0);
  EXPECT_EQ(launched(p), 0);
  EXPECT_EQ(reason_for(p, "research-a/next-0")->kind, UnschedulableKind::BudgetWait);
}

TEST(BudgetAdmission, TheLedgerAndTheNodesDescribingTheSameInstanceAreNotAddedUp) {
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.namespaces["research-a"].usd_per_hour = 20;
  Snapshot s = one_node_and_a_job();
  s.spend["research-a"].committed_micros_per_hour = 7'344'000;  // the same node, per the ledger
  const Plan p = plan(s, gpu_catalog(), pol, 0);
  EXPECT_EQ(launched(p), 1);  // $7.34/h committed + $7.34/h fits $20/h; counted twice it would not
}

TEST(BudgetAdmission, TheClusterCapCountsWhatTheLedgerCommitsForNamespacesWithoutNodes) {
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.cluster.usd_per_hour = 19;
  Snapshot s = one_node_and_a_job();
  s.spend["research-b"].committed_micros_per_hour = 5'000'000;  // no node in the snapshot yet
  const Plan p = plan(s, gpu_catalog(), pol, 0);
  EXPECT_EQ(launched(p), 0);  // $7.34/h + $5/h + the job's $7.34/h is over $19/h
  EXPECT_EQ(reason_for(p, "research-a/next-0")->kind, UnschedulableKind::BudgetWait);
}

TEST(BudgetAdmission, AGangIsRefusedWhole) {
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.namespaces["research-a"] = {std::nullopt, std::nullopt, std::nullopt,
                                          20000.0,      72 * 3600,    std::nullopt};
  Snapshot s;
  // 20 pods x 8 GPUs = 20 nodes x $7.344 = $146.88/h x 72h = $10,575.36: fits $20,000.
  // 40 pods: $293.76/h x 72h = $21,150.72: does not, and not one node may launch.
  for (int i = 0; i < 40; ++i) {
    Pod p = job_pod("big", i, 8);
    p.gang = Gang{"big", 40};
    s.pods.push_back(p);
  }
  const Plan p = plan(s, gpu_catalog(), pol, 0);
  EXPECT_TRUE(p.launch.empty());
  ASSERT_EQ(p.unschedulable.size(), 40u);
  for (const auto& u : p.unschedulable) EXPECT_EQ(u.kind, UnschedulableKind::BudgetRefused);
  EXPECT_EQ(p.unschedulable[0].reason,
            "namespace research-a: job needs $293.76/h × 72h = $21,150.72 worst case; usdPerJob is "
            "$20,000 ($1,150.72 over)");
}

TEST(BudgetAdmission, DeclaredRuntimeReplacesTheNamespaceDefault) {
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.namespaces["research-a"] = {std::nullopt, std::nullopt, std::nullopt,
                                          100.0,        72 * 3600,    std::nullopt};
  Snapshot s;
  Pod p = job_pod("short", 0, 8);
  p.active_deadline_s = 3600 * 10;  // $7.344 x 10h = $73.44 <= $100
  s.pods.push_back(p);
  EXPECT_EQ(launched(plan(s, gpu_catalog(), pol, 0)), 1);
  s.pods[0].active_deadline_s = 3600 * 14;  // $102.82 > $100
  EXPECT_EQ(launched(plan(s, gpu_catalog(), pol, 0)), 0);
}

TEST(BudgetAdmission, DailyCapCountsSpendSoFarAndOnlyWhatIsLeftOfTheUtcDay) {
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.namespaces["research-a"].usd_per_day = 3000;
  Snapshot s;
  Pod p = job_pod("train", 0, 8);
  p.active_deadline_s = 24 * 3600;
  s.pods.push_back(p);
  s.spend["research-a"].spent_today = dollars_to_micros(2950);

  // 12:00 UTC: 12h x $7.344 = $88.13 more today -> $3,038.13 > $3,000: wait.
  const Time noon = parse_rfc3339("2026-11-29T12:00:00Z");
  Plan out = plan(s, gpu_catalog(), pol, noon);
  EXPECT_EQ(launched(out), 0);
  const auto* u = reason_for(out, "research-a/train-0");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->kind, UnschedulableKind::BudgetWait);
  EXPECT_EQ(u->reason,
            "namespace research-a: job needs $7.34/h for up to 24h; today's spend and committed "
            "worst case leave no room for it under usdPerDay $3,000; it waits for committed work "
            "to end or the UTC day to turn");
  // The words do not change as the day goes on (one event, aggregated, not one per loop).
  EXPECT_EQ(reason_for(plan(s, gpu_catalog(), pol, noon + 600), "research-a/train-0")->reason,
            u->reason);

  // 23:00 UTC: one hour left today, $7.34 -> $2,957.34: launches.
  out = plan(s, gpu_catalog(), pol, parse_rfc3339("2026-11-29T23:00:00Z"));
  EXPECT_EQ(launched(out), 1);
}

TEST(BudgetAdmission, ClusterGpuCapWaitsWhenOnlyWhatRunsBlocksIt) {
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.cluster.gpus = 16;
  Snapshot s;
  for (int i = 0; i < 3; ++i) {
    Pod p = job_pod("j" + std::to_string(i), 0, 8);
    p.created = i;
    s.pods.push_back(p);
  }
  const Plan p = plan(s, gpu_catalog(), pol, 0);
  EXPECT_EQ(launched(p), 2);
  const auto* u = reason_for(p, "research-a/j2-0");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->kind, UnschedulableKind::BudgetWait);
  // GPU and node counts are charged after packing, for the plan at once (issue 12).
  EXPECT_EQ(u->reason,
            "cluster: the plan's new nodes reach the cluster's gpus cap of 16; the job waits for "
            "GPUs to free up");
}

// --- Issue 12: commitment by use, not by launcher. ---

// One 1-GPU type, $1/h spot.
Catalog one_gpu_catalog() { return make_catalog({{"g1", 8000, 60 * kGi, 1, 1.0, 3.0, "T4"}}); }

Pod one_gpu_pod(const std::string& name, const std::string& ns, Time created) {
  Pod p = make_pod(name, 4000, 30 * kGi, 1, ns);
  p.created = created;
  return p;
}

Node gpu_node(const std::string& name, const std::string& owner, NodeState state) {
  Node n = testing::make_node(name, 8000, 60 * kGi, "us-east-1a", state);
  n.allocatable.gpus = 1;
  n.managed = true;
  n.owner_namespace = owner;
  n.price_micros_per_hour = 1'000'000;
  n.launched_at = 100;
  n.labels[std::string(label::kGpuModel)] = "T4";
  return n;
}

// The incident of issue 12: team-capped is at its $1/h cap; team-b's pod has a node in flight.
// team-capped's older pod must not take that node (it would start there, charged to team-b,
// and team-b's pod would launch again), and nothing else launches.
TEST(BudgetAdmission, ARefusedPodTakesNoInFlightNodeLaunchedForAnotherNamespace) {
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.namespaces["team-capped"].usd_per_hour = 1;
  Snapshot s;
  s.nodes.push_back(gpu_node("own", "team-capped", NodeState::Ready));
  Pod running = one_gpu_pod("running", "team-capped", 10);
  running.node_name = "own";
  running.phase = PodPhase::Running;
  s.pods.push_back(running);
  s.nodes.push_back(gpu_node("i-for-b", "team-b", NodeState::InFlight));
  s.pods.push_back(one_gpu_pod("waiting", "team-capped", 150));  // older than team-b's pod
  s.pods.push_back(one_gpu_pod("b", "team-b", 200));

  const Plan p = plan(s, one_gpu_catalog(), pol, 300);
  EXPECT_EQ(launched(p), 0);
  EXPECT_EQ(p.placements.count("team-capped/waiting"), 0u);
  ASSERT_EQ(p.placements.count("team-b/b"), 1u);
  EXPECT_EQ(p.placements.at("team-b/b"), "i-for-b");
  const auto* u = reason_for(p, "team-capped/waiting");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->kind, UnschedulableKind::BudgetWait);
  EXPECT_EQ(u->reason,
            "namespace team-capped: job needs $1.00/h; it waits for $1.00/h of the namespace's "
            "usdPerHour cap of $1.00/h to free up");
}

// team-capped launched nothing, but its pod runs on team-b's node and fills it: it is committed
// for that node's $1/h, so its next pod waits (counted by launcher, it would launch).
TEST(BudgetAdmission, CommittedPerHourCountsUseOfOtherTeamsNodes) {
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.namespaces["team-capped"].usd_per_hour = 1.5;
  Snapshot s;
  s.nodes.push_back(gpu_node("b-node", "team-b", NodeState::Ready));
  Pod running = one_gpu_pod("running", "team-capped", 10);
  running.node_name = "b-node";
  running.phase = PodPhase::Running;
  s.pods.push_back(running);
  s.pods.push_back(one_gpu_pod("next", "team-capped", 20));
  const Plan p = plan(s, one_gpu_catalog(), pol, 300);
  EXPECT_EQ(launched(p), 0);
  ASSERT_NE(reason_for(p, "team-capped/next"), nullptr);
  EXPECT_EQ(reason_for(p, "team-capped/next")->kind, UnschedulableKind::BudgetWait);

  // The same pod on a node of its own team's is committed the same: by use, either way.
  s.nodes[0].owner_namespace = "team-capped";
  EXPECT_EQ(reason_for(plan(s, one_gpu_catalog(), pol, 300), "team-capped/next")->kind,
            UnschedulableKind::BudgetWait);
  // Another team's pod with the same need is not held by team-capped's use.
  s.pods.push_back(one_gpu_pod("other", "team-b", 30));
  EXPECT_EQ(reason_for(plan(s, one_gpu_catalog(), pol, 300), "team-b/other"), nullptr);
}

// A job that would start on free room of an existing node is charged its share of that node:
// 2 CPUs of a node of 8 CPUs at $4/h is $1/h, over a $0.50/h cap, so it is not placed.
TEST(BudgetAdmission, RoomOnExistingNodesIsChargedToTheJobThatTakesIt) {
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.namespaces["team-a"].usd_per_hour = 0.5;
  Snapshot s;
  Node n = testing::make_node("big", 8000, 64 * kGi);
  n.managed = true;
  n.owner_namespace = "team-b";
  n.price_micros_per_hour = 4'000'000;
  s.nodes.push_back(n);
  s.pods.push_back(make_pod("small", 2000, 1 * kGi, 0, "team-a"));
  const Plan p = plan(s, one_gpu_catalog(), pol, 0);
  EXPECT_TRUE(p.placements.empty());
  const auto* u = reason_for(p, "team-a/small");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->kind, UnschedulableKind::BudgetRefused);
  EXPECT_EQ(u->reason, "namespace team-a: job needs $1.00/h; usdPerHour is $0.5/h ($0.5/h over)");
  // With a $1/h cap it fits and is placed there, launching nothing.
  pol.budgets.namespaces["team-a"].usd_per_hour = 1;
  const Plan q = plan(s, one_gpu_catalog(), pol, 0);
  EXPECT_EQ(q.placements.at("team-a/small"), "big");
  EXPECT_EQ(launched(q), 0);
}

// The launcher of a node stays committed for all of it: when another team's pod on it ends, its
// part comes back to the launcher as idle with no admission in between. team-a launched a
// 2-GPU node ($7.20/h) that team-b half uses; team-a's $8/h cap leaves no room for another
// $3.60/h, though by use it has only $3.60/h now.
TEST(BudgetAdmission, TheLauncherOfANodeStaysCommittedForAllOfIt) {
  const Catalog two = make_catalog({{"g2", 16000, 128 * kGi, 2, 7.2, 7.2, "V100"}});
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.namespaces["team-a"].usd_per_hour = 8;
  Snapshot s;
  for (const char* name : {"a-node", "b-node"}) {
    Node n = testing::make_node(name, 16000, 128 * kGi);
    n.managed = true;
    n.state = NodeState::Ready;
    n.owner_namespace = name[0] == 'a' ? "team-a" : "team-b";
    n.price_micros_per_hour = 7'200'000;
    n.allocatable.gpus = 2;
    s.nodes.push_back(n);
  }
  Pod b_pod = make_pod("b-running", 4000, 16 * kGi, 1, "team-b");
  b_pod.node_name = "a-node";
  b_pod.phase = PodPhase::Running;
  s.pods.push_back(b_pod);
  Pod b_pod2 = make_pod("b-running-2", 4000, 16 * kGi, 1, "team-b");
  b_pod2.node_name = "a-node";
  b_pod2.phase = PodPhase::Running;
  s.pods.push_back(b_pod2);
  s.pods.push_back(make_pod("a-next", 4000, 16 * kGi, 1, "team-a"));  // half of b-node: $3.60/h
  const Plan p = plan(s, two, pol, 0);
  EXPECT_TRUE(p.placements.empty());
  EXPECT_EQ(launched(p), 0);
  ASSERT_NE(reason_for(p, "team-a/a-next"), nullptr);
  EXPECT_EQ(reason_for(p, "team-a/a-next")->kind, UnschedulableKind::BudgetWait);
  // Without its own node it fits on team-b's.
  s.nodes.erase(s.nodes.begin());
  s.pods.erase(s.pods.begin(), s.pods.begin() + 2);
  EXPECT_EQ(plan(s, two, pol, 0).placements.at("team-a/a-next"), "b-node");
}

// Issue 12: admission prices a lone job at its marginal share of its class's packing, so a job
// that fills the second half of a new node launched for an older job is charged nothing, and
// no cap is checked for it. The plan's final packing commits it to half that node ($3.60/h),
// for its declared 4h: $14.40 worst case against a usdPerJob of $10, so it waits and the node
// is launched for the older job alone.
TEST(BudgetAdmission, TheFinalPackingIsCheckedAgainstEveryCap) {
  const Catalog two = make_catalog({{"g2", 16000, 128 * kGi, 2, 7.2, 7.2, "V100"}});
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.namespaces["team-a"].usd_per_job = 10;
  pol.budgets.namespaces["team-a"].max_runtime = 3600;
  Snapshot s;
  Pod first = make_pod("first", 4000, 16 * kGi, 1, "team-a");
  first.created = 10;
  Pod rider = make_pod("rider", 4000, 16 * kGi, 1, "team-a");
  rider.created = 20;
  rider.annotations["fitscale.io/max-runtime"] = "4h";
  s.pods = {first, rider};
  const Plan p = plan(s, two, pol, 0);
  ASSERT_EQ(launched(p), 1);
  EXPECT_EQ(p.launch[0].pods, std::vector<std::string>{"team-a/first"});
  const auto* u = reason_for(p, "team-a/rider");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->kind, UnschedulableKind::BudgetWait);
  EXPECT_EQ(u->reason,
            "namespace team-a: the plan's new nodes, packed, make job team-a/rider cost $14.40 "
            "worst case; usdPerJob is $10.00; the job waits for other jobs' nodes to take it");
  // Within its cap, both go on one node.
  rider.annotations["fitscale.io/max-runtime"] = "2h";
  s.pods = {first, rider};
  const Plan q = plan(s, two, pol, 0);
  ASSERT_EQ(launched(q), 1);
  EXPECT_EQ(q.launch[0].pods.size(), 2u);
}

TEST(BudgetAdmission, DisabledBudgetsAdmitEverything) {
  Snapshot s;
  for (int i = 0; i < 1250; ++i) s.pods.push_back(job_pod("intern", i, 8, "interns"));
  Policy pol;
  pol.enforce_budgets = false;
  EXPECT_EQ(launched(plan(s, gpu_catalog(), pol, 0)), 1250);
}

}  // namespace
}  // namespace fitscale
