// The baselines' evictions (sim/baseline_disruption.h) and what they cost in a replay.
#include <gtest/gtest.h>

#include "planner/baseline_policy.h"
#include "sim/baseline_disruption.h"
#include "sim/html_report.h"
#include "sim/simulator.h"

namespace fitscale {
namespace {

constexpr std::int64_t kGi = 1024LL * 1024 * 1024;
constexpr Time kT0 = 1767571200;

Node gpu_node(const std::string& name, std::int64_t gpus) {
  Node n;
  n.name = name;
  n.state = NodeState::Ready;
  n.created = kT0;
  n.allocatable.cpu_milli = 32000;
  n.allocatable.memory_bytes = 244 * kGi;
  n.allocatable.gpus = gpus;
  n.allocatable.pods = 110;
  n.labels = {{std::string(label::kHostname), name}};
  return n;
}

void add_running(SimCluster& c, const std::string& name, std::int64_t gpus,
                 const std::string& node) {
  Pod p;
  p.ns = "team-a";
  p.name = name;
  p.uid = name;
  p.requests.cpu_milli = 4000;
  p.requests.memory_bytes = 16 * kGi;
  p.requests.gpus = gpus;
  p.requests.pods = 1;
  c.add_pod(p);
  c.bind("team-a/" + name, node, kT0);
}

TEST(BaselineDisruption, ClusterAutoscalerDrainsANodeUnderHalfUsedForTenMinutesWhenItsPodsFit) {
  SimCluster c;
  c.add_node(gpu_node("quiet", 4));
  c.add_node(gpu_node("busy", 4));
  add_running(c, "one", 1, "quiet");  // 25% of its GPUs
  add_running(c, "two", 2, "busy");   // 50%: not under the threshold
  Disruptor ca(disruption_rules(PolicyKind::ClusterAutoscaler));
  EXPECT_TRUE(ca.choose(c, kT0).empty());        // unneeded from now
  EXPECT_TRUE(ca.choose(c, kT0 + 599).empty());  // not yet 10 minutes
  const auto d = ca.choose(c, kT0 + 600);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].node, "quiet");
  EXPECT_EQ(d[0].reason, "underutilized");
}

TEST(BaselineDisruption, ClusterAutoscalerKeepsAnUnderusedNodeWhosePodsFitNowhereElse) {
  SimCluster c;
  c.add_node(gpu_node("quiet", 4));
  c.add_node(gpu_node("full", 4));
  add_running(c, "one", 1, "quiet");
  add_running(c, "four", 4, "full");
  Disruptor ca(disruption_rules(PolicyKind::ClusterAutoscaler));
  EXPECT_TRUE(ca.choose(c, kT0).empty());
  EXPECT_TRUE(ca.choose(c, kT0 + 3600).empty());
}

TEST(BaselineDisruption, KarpenterConsolidatesAtOnceAndExpiresNodesAt720h) {
  SimCluster c;
  c.add_node(gpu_node("small", 1));
  c.add_node(gpu_node("big", 4));
  add_running(c, "one", 1, "small");  // 100% used, but fits in big's free room
  add_running(c, "three", 3, "big");
  Disruptor k(disruption_rules(PolicyKind::Karpenter));
  const auto d = k.choose(c, kT0 + 10);
  ASSERT_EQ(d.size(), 1u);  // big takes small's pod; big itself then has nowhere to go
  EXPECT_EQ(d[0].node, "small");
  EXPECT_EQ(d[0].reason, "consolidated");
  const auto old = k.choose(c, kT0 + Seconds{720} * 3600);
  ASSERT_EQ(old.size(), 2u);
  EXPECT_EQ(old[0].reason, "expired");
  Disruptor none(disruption_rules(PolicyKind::Fitscale));
  EXPECT_TRUE(none.choose(c, kT0 + Seconds{720} * 3600).empty());
}

// g1: 1 V100 for $1/h spot; g4: 4 V100 for $4/h spot (one zone, no interruptions).
Catalog gpu_catalog() {
  CatalogOptions o;
  o.zones = {"us-east-1a"};
  const std::string csv =
      "instance_type,arch,vcpu,memory_mib,gpu,gpu_model,gpu_memory_mib,on_demand_usd_per_hour,"
      "spot_usd_per_hour,spot_interruption_bucket,spot_interruption_label\n"
      "g1.xlarge,amd64,8,65536,1,V100,16384,3.0,1.0,0,<5%\n"
      "g4.xlarge,amd64,32,262144,4,V100,16384,12.0,4.0,0,<5%\n";
  return build_catalog(parse_catalog_csv(csv, "test.csv"), o);
}

SimOptions options_for(PolicyKind kind) {
  Config config;
  config.zones = {"us-east-1a"};
  config.policy = kind;
  SimOptions o = sim_options_from_config(config);
  o.interruptions = false;
  return o;
}

// "solo" (1 GPU, 10 h, no checkpoints) runs on a g1 from 180 s; at 1 h "trio" (3 GPUs) gets a g4
// with one GPU to spare. Karpenter's consolidation moves solo there: it starts again from zero,
// an hour of its g1 thrown away. fitscale never evicts it.
const char* kTrace =
    "submit_s,job,namespace,replicas,cpu,memory,gpu,gpu_model,duration_s,capacity_type,"
    "checkpoint_interval_s\n"
    "0,solo,team-a,1,4,16Gi,1,,36000,,\n"
    "3600,trio,team-b,1,12,48Gi,3,,36000,,\n";

TEST(BaselineReplay, KarpenterConsolidationEvictsAndTheLossIsCounted) {
  const auto jobs = parse_trace(kTrace, "t.csv");
  const SimReport k = simulate(jobs, gpu_catalog(), options_for(PolicyKind::Karpenter));
  EXPECT_EQ(k.sim.policy, "karpenter");
  EXPECT_EQ(k.jobs.completed, 2);
  EXPECT_EQ(k.evictions.nodes, 1);
  EXPECT_EQ(k.evictions.nodes_by_reason.at("consolidated"), 1);
  EXPECT_EQ(k.evictions.jobs, 1);
  // solo ran from 180 s until the g4 was Ready (3600 + 180 s) and a loop saw it: ~1 h, on a
  // $1/h node it had to itself.
  EXPECT_NEAR(k.evictions.lost_job_hours, 1.0, 0.02);
  EXPECT_NEAR(k.evictions.lost_gpu_hours, 1.0, 0.02);
  EXPECT_NEAR(k.evictions.lost_usd, 1.0, 0.02);
  EXPECT_DOUBLE_EQ(k.excess_usd.lost_to_evictions, k.evictions.lost_usd);
  EXPECT_NEAR(k.excess_usd.boot + k.excess_usd.idle + k.excess_usd.lost_to_interruptions +
                  k.excess_usd.lost_to_evictions + k.excess_usd.packing,
              k.cost_usd.total - k.lower_bound_usd, 1e-6);

  const SimReport f = simulate(jobs, gpu_catalog(), options_for(PolicyKind::Fitscale));
  EXPECT_EQ(f.jobs.completed, 2);
  EXPECT_EQ(f.evictions.nodes, 0);
  EXPECT_EQ(f.evictions.lost_usd, 0);
  EXPECT_EQ(f.sim.restarts, 0);
}

TEST(BaselineReplay, CompareReportHasOneColumnPerRunAndOneLinePerRunOnEachChart) {
  const auto jobs = parse_trace(kTrace, "t.csv");
  std::vector<SimReport> reports;
  for (PolicyKind kind :
       {PolicyKind::Fitscale, PolicyKind::ClusterAutoscaler, PolicyKind::Karpenter})
    reports.push_back(simulate(jobs, gpu_catalog(), options_for(kind)));
  const std::vector<NamedReport> runs = {
      {"fitscale", &reports[0]}, {"cluster-autoscaler", &reports[1]}, {"karpenter", &reports[2]}};
  const std::string page = report_html(runs);
  std::size_t columns = 0;
  for (auto at = page.find("<th class=\"num run\">"); at != std::string::npos;
       at = page.find("<th class=\"num run\">", at + 1))
    ++columns;
  EXPECT_EQ(columns, 3u);
  for (const auto& name : {"fitscale", "cluster-autoscaler", "karpenter"})
    EXPECT_NE(page.find("Costliest jobs: " + std::string(name)), std::string::npos) << name;
  EXPECT_NE(page.find("id=\"bound-explained\""), std::string::npos);
  EXPECT_NE(page.find("id=\"teams\""), std::string::npos);
  EXPECT_NE(page.find("work lost to evictions"), std::string::npos);
  // The chart data carries one series per run.
  EXPECT_NE(page.find("\"name\":\"cluster-autoscaler\""), std::string::npos);
  // One run is the single-run page.
  EXPECT_EQ(report_html(std::vector<NamedReport>{runs[0]}), report_html(reports[0]));
}

}  // namespace
}  // namespace fitscale
