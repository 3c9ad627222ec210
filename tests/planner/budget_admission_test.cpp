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
      "namespace interns: job needs $9,180/h × 24h = $220,320 worst case; usdPerJob is $5,000");
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
  EXPECT_EQ(u->reason,
            "namespace research-a: job needs $7.34/h but $7.34/h is already committed; usdPerHour "
            "is $10.00/h");
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
  pol.budgets.namespaces["research-a"] = {std::nullopt, std::nullopt, std::nullopt, 20000.0,
                                          72 * 3600};
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
            "$20,000");
}

TEST(BudgetAdmission, DeclaredRuntimeReplacesTheNamespaceDefault) {
  Policy pol;
  pol.budgets = Budgets{};
  pol.budgets.namespaces["research-a"] = {std::nullopt, std::nullopt, std::nullopt, 100.0,
                                          72 * 3600};
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
  EXPECT_EQ(
      u->reason,
      "namespace research-a: $2,950 spent today + $0 committed worst case + job's $88.13 before "
      "midnight UTC = $3,038.13; usdPerDay is $3,000");

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
  EXPECT_EQ(u->reason, "cluster: job needs 8 GPUs but 16 are in use; the cluster's gpus cap is 16");
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
