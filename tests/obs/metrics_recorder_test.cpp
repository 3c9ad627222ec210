// What an operator's dashboard shows after the controller reports a loop and its actions.
#include "obs/metrics_recorder.h"

#include <gtest/gtest.h>

#include "obs/opencost_split.h"
#include "planner/plan.h"

namespace fitscale::obs {
namespace {

Node managed_node(std::string name, std::string type, CapacityType cap, Micros price,
                  std::string ns, NodeState state = NodeState::Ready) {
  Node n;
  n.name = std::move(name);
  n.managed = true;
  n.instance_type = std::move(type);
  n.zone = "us-east-1b";
  n.capacity_type = cap;
  n.price_micros_per_hour = price;
  n.owner_namespace = std::move(ns);
  n.state = state;
  n.labels[std::string(label::kPool)] = "gpu";
  return n;
}

Pod pending_pod(std::string name) {
  Pod p;
  p.ns = "team-a";
  p.name = std::move(name);
  return p;
}

struct Fixture : ::testing::Test {
  MetricsRegistry reg;
  Catalog catalog;
  std::unique_ptr<MetricsRecorder> rec;
  void SetUp() override {
    InstanceType p3;
    p3.name = "p3.8xlarge";
    p3.vcpu = 32;
    p3.memory_mib = 244 * 1024;
    p3.gpu = 4;
    p3.on_demand_usd_per_hour = 12.24;
    catalog.types.push_back(p3);
    MetricsOptions o;
    o.catalog = &catalog;
    o.budgets = Budgets{};
    o.budgets.namespaces["team-a"].usd_per_day = 100;
    rec = std::make_unique<MetricsRecorder>(reg, o);
  }
};

TEST_F(Fixture, ViewAndPlanBecomeGauges) {
  Snapshot s;
  s.nodes.push_back(managed_node("ip-1", "p3.8xlarge", CapacityType::Spot, 3'672'000, "team-a"));
  s.nodes.push_back(managed_node("i-2", "p3.8xlarge", CapacityType::OnDemand, 12'240'000, "team-b",
                                 NodeState::InFlight));
  s.pods = {pending_pod("a"), pending_pod("b")};
  Plan plan;
  plan.launch.push_back(
      {"p3.8xlarge", "us-east-1a", CapacityType::Spot, 3, 3.672, {}, "team-a", "j", 0, "default"});
  plan.unschedulable.push_back({"team-a/b", "j", UnschedulableKind::BudgetWait, "over"});
  rec->planned(s, plan, {});

  EXPECT_EQ(reg.render().find("fitscale_pending_pods 2\n") != std::string::npos, true);
  auto out = reg.render();
  EXPECT_NE(out.find("fitscale_unschedulable_pods{reason=\"budget-wait\"} 1\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("fitscale_unschedulable_pods{reason=\"no-offering\"} 0\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("fitscale_plan_launches 3\n"), std::string::npos);
  EXPECT_NE(out.find("fitscale_nodes{state=\"ready\",pool=\"gpu\",instance_type=\"p3.8xlarge\","
                     "capacity_type=\"spot\"} 1\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("fitscale_committed_usd_per_hour{namespace=\"team-b\",capacity_type=\"on-"
                     "demand\"} 12.24\n"),
            std::string::npos)
      << out;

  // OpenCost: only the registered node, its parts add back up to its price.
  auto oc = reg.render_compat();
  EXPECT_EQ(oc.find("i-2"), std::string::npos) << "an in-flight instance has no Node to join on";
  LabelValues l = {"ip-1", "p3.8xlarge", "us-east-1"};
  EXPECT_NE(oc.find("node_total_hourly_cost{node=\"ip-1\",instance_type=\"p3.8xlarge\",region=\"us-"
                    "east-1\"} 3.672\n"),
            std::string::npos)
      << oc;
  EXPECT_NE(oc.find("kubecost_node_is_spot{node=\"ip-1\",instance_type=\"p3.8xlarge\",region=\"us-"
                    "east-1\"} 1\n"),
            std::string::npos);
  EXPECT_NE(
      oc.find(
          "node_gpu_count{node=\"ip-1\",instance_type=\"p3.8xlarge\",region=\"us-east-1\"} 4\n"),
      std::string::npos);
  EXPECT_EQ(reg.render().find("node_total_hourly_cost"), std::string::npos)
      << "/metrics stays lint-clean";
}

TEST(OpenCostSplit, PartsAddUpToThePrice) {
  NodePriceSplit s = split_node_price(3.672, 32, 244, 4);
  EXPECT_NEAR(s.cpu_per_vcpu_hour * 32 + s.ram_per_gib_hour * 244 + s.gpu_per_gpu_hour * 4, 3.672,
              1e-9);
  // GPUs carry most of a GPU node's price under the reference weights.
  EXPECT_GT(s.gpu_per_gpu_hour * 4, 3.672 / 2);
  NodePriceSplit cpu_only = split_node_price(0.192, 8, 32, 0);
  EXPECT_EQ(cpu_only.gpu_per_gpu_hour, 0);
  EXPECT_NEAR(cpu_only.cpu_per_vcpu_hour * 8 + cpu_only.ram_per_gib_hour * 32, 0.192, 1e-12);
}

// The caps that apply now, not the ones the recorder was built with: `fitscale run` tells it
// when Budget objects change them (a namespace capped only by its Budget shows up too).
TEST_F(Fixture, CapGaugesFollowTheLiveBudgets) {
  Snapshot s;
  s.spend["team-a"].spent_today = 20'000'000;
  rec->planned(s, Plan{}, {});
  auto out = reg.render();
  EXPECT_NE(out.find("fitscale_budget_cap_usd{namespace=\"team-a\",period=\"day\"} 100\n"),
            std::string::npos)
      << out;
  Budgets live = Budgets{};
  live.namespaces["team-a"].usd_per_day = 40;
  live.namespaces["team-b"].usd_per_hour = 7;
  rec->set_budgets(live);
  rec->planned(s, Plan{}, {});
  out = reg.render();
  EXPECT_NE(out.find("fitscale_budget_cap_usd{namespace=\"team-a\",period=\"day\"} 40\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("fitscale_budget_remaining_usd{namespace=\"team-a\",period=\"day\"} 20\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("fitscale_budget_cap_usd{namespace=\"team-b\",period=\"hour\"} 7\n"),
            std::string::npos)
      << out;
}

TEST_F(Fixture, SpendCounterOnlyGrowsAcrossAMonthRollover) {
  Snapshot s;
  s.spend["team-a"].spent_this_month = 50'000'000;  // before this process: the baseline
  s.spend["team-a"].spent_today = 20'000'000;
  rec->planned(s, Plan{}, {});
  auto out = reg.render();
  EXPECT_NE(out.find("fitscale_spend_usd_total{namespace=\"team-a\"} 0\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("fitscale_budget_used_usd{namespace=\"team-a\",period=\"day\"} 20\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("fitscale_budget_remaining_usd{namespace=\"team-a\",period=\"day\"} 80\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("fitscale_budget_remaining_usd{namespace=\"team-a\",period=\"month\"}"),
            std::string::npos)
      << "no monthly cap, no remaining series";

  s.spend["team-a"].spent_this_month = 57'500'000;
  rec->planned(s, Plan{}, {});
  s.spend["team-a"].spent_this_month = 2'000'000;  // new month
  rec->planned(s, Plan{}, {});
  out = reg.render();
  EXPECT_NE(out.find("fitscale_spend_usd_total{namespace=\"team-a\"} 9.5\n"), std::string::npos)
      << out;
}

TEST_F(Fixture, ActionsBecomeCounters) {
  rec->action({ActionKind::Launch, "team-a/x", "launch", {{"count", "3"}}});
  rec->action(
      {ActionKind::LaunchFailed, "p3", "no capacity", {{"code", "InsufficientInstanceCapacity"}}});
  rec->action(
      {ActionKind::Remove, "ip-1", "never registered after 900s", {{"kind", "never-registered"}}});
  rec->action({ActionKind::Remove, "ip-2", "empty for 61s", {}});
  rec->action({ActionKind::Interrupted, "ip-3", "spot reclaimed", {}});
  rec->action({ActionKind::Refuse, "team-a/y", "over daily cap", {{"kind", "budget-refused"}}});
  auto out = reg.render();
  EXPECT_NE(out.find("fitscale_launches_total 3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("fitscale_launch_failures_total{code=\"InsufficientInstanceCapacity\"} 1\n"),
            std::string::npos);
  EXPECT_NE(out.find("fitscale_removals_total{reason=\"never-registered\"} 1\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("fitscale_removals_total{reason=\"empty\"} 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("fitscale_never_registered_total 1\n"), std::string::npos);
  EXPECT_NE(out.find("fitscale_interruptions_total 1\n"), std::string::npos);
  EXPECT_NE(out.find("fitscale_refusals_total{reason=\"budget-refused\"} 1\n"), std::string::npos)
      << out;
}

TEST_F(Fixture, LoopPhasesAreTimedSkippedLoopsOnlyObserve) {
  rec->loop_finished({.at = 100,
                      .observe_s = 0.002,
                      .plan_s = 0.03,
                      .act_s = 0.2,
                      .record_s = 0.004,
                      .total_s = 0.5,
                      .skipped = false});
  rec->loop_finished({.at = 110, .observe_s = 0.001, .total_s = 0.0625, .skipped = true});
  auto out = reg.render();
  EXPECT_NE(out.find("fitscale_loop_duration_seconds_count 2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("fitscale_loop_duration_seconds_sum 0.5625\n"), std::string::npos) << out;
  // 62.5 ms falls in the 0.1 s bucket, 0.5 s in the 0.5 s one.
  EXPECT_NE(out.find("fitscale_loop_duration_seconds_bucket{le=\"0.05\"} 0\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("fitscale_loop_duration_seconds_bucket{le=\"0.1\"} 1\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("fitscale_loop_duration_seconds_bucket{le=\"0.25\"} 1\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("fitscale_loop_duration_seconds_bucket{le=\"0.5\"} 2\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("fitscale_loop_phase_duration_seconds_count{phase=\"observe\"} 2\n"),
            std::string::npos)
      << out;
  for (const char* phase : {"plan", "act", "record"}) {
    EXPECT_NE(out.find("fitscale_loop_phase_duration_seconds_count{phase=\"" + std::string(phase) +
                       "\"} 1\n"),
              std::string::npos)
        << phase << "\n"
        << out;
  }
  EXPECT_NE(out.find("fitscale_loop_phase_duration_seconds_sum{phase=\"act\"} 0.2\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("fitscale_loops_total{result=\"skipped\"} 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("fitscale_loops_total{result=\"planned\"} 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("fitscale_last_loop_timestamp_seconds 110\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("_other"), std::string::npos) << out;
}

}  // namespace
}  // namespace fitscale::obs
