// The planner through pools: requirements, labels and taints decide which offerings a pod may
// use, weight then price which pool, and a pool's limits hold for whole jobs.
#include <gtest/gtest.h>

#include <string>

#include "fixtures.h"
#include "model/catalog.h"
#include "model/config.h"
#include "model/extended_resource_toleration.h"
#include "planner/plan.h"
#include "planner/policy_from_config.h"

namespace fitscale {
namespace {

using testing::kGi;
using testing::make_pod;

constexpr const char* kCsv =
    "instance_type,arch,vcpu,memory_mib,gpu,gpu_model,gpu_memory_mib,on_demand_usd_per_hour,"
    "spot_usd_per_hour,spot_interruption_bucket,spot_interruption_label\n"
    "m6g.xlarge,arm64,4,16384,0,,0,0.154,0.03,0,<5%\n"
    "m5.xlarge,amd64,4,16384,0,,0,0.192,0.06,0,<5%\n"
    "c5.xlarge,amd64,4,8192,0,,0,0.17,0.05,0,<5%\n"
    "m3.xlarge,amd64,4,15360,0,,0,0.10,0.01,0,<5%\n"
    "g4dn.xlarge,amd64,4,16384,1,T4,16384,0.526,0.02,0,<5%\n"
    "p3.2xlarge,amd64,8,62464,1,V100,16384,3.06,0.9,0,<5%\n";

struct World {
  Catalog catalog;
  Policy policy;
};

World world(const std::string& yaml) {
  Config c = parse_config(yaml + "zones: [us-east-1a]\nbudgets: {}\n", "c.yaml");
  World w{build_catalog(parse_catalog_csv(kCsv, "c.csv"), catalog_options_from_config(c)),
          policy_from_config(c)};
  return w;
}

Plan plan_for(const World& w, std::vector<Pod> pods, std::vector<Node> nodes = {}) {
  Snapshot s;
  s.pods = std::move(pods);
  s.nodes = std::move(nodes);
  return plan(s, w.catalog, w.policy, 1000);
}

TEST(PlannerPools, DefaultPoolNeverLaunchesArmOrOldTypesNorGpuNodesForCpuPods) {
  const World w = world("");
  // m6g (arm64), m3 (previous generation) and g4dn spot (a GPU node) are all cheaper than m5.
  const Plan p = plan_for(w, {make_pod("cpu", 3000, 10 * kGi)});
  ASSERT_EQ(p.launch.size(), 1u);
  EXPECT_EQ(p.launch[0].instance_type, "m5.xlarge");
  EXPECT_EQ(p.launch[0].pool, "default");
}

TEST(PlannerPools, GpuPodNeedsTheGpuTaintTolerationWhichAdmissionAdds) {
  const World w = world("");
  const Plan bare = plan_for(w, {make_pod("gpu", 1000, kGi, 1)});
  EXPECT_TRUE(bare.launch.empty());
  ASSERT_EQ(bare.unschedulable.size(), 1u);
  EXPECT_NE(bare.unschedulable[0].reason.find("nvidia.com/gpu=true:NoSchedule"), std::string::npos)
      << bare.unschedulable[0].reason;
  EXPECT_EQ(bare.unschedulable[0].kind, UnschedulableKind::NoOffering);
  Pod tolerating = make_pod("gpu", 1000, kGi, 1);
  ASSERT_TRUE(add_extended_resource_tolerations(tolerating));
  const Plan p = plan_for(w, {tolerating});
  ASSERT_EQ(p.launch.size(), 1u);
  EXPECT_EQ(p.launch[0].instance_type, "g4dn.xlarge");
}

TEST(PlannerPools, PoolLabelsAndTaintsDecideWhoMayUseIt) {
  const World w = world(R"(
pools:
  - name: v100
    requirements: [{key: fitscale.io/gpu-model, operator: In, values: [V100]}]
    labels: {team: ml}
    taints: [{key: team, value: ml, effect: NoSchedule}]
  - name: cpu
    requirements: [{key: fitscale.io/gpu-count, operator: DoesNotExist},
                   {key: kubernetes.io/arch, operator: In, values: [amd64]}]
)");
  Pod gpu = make_pod("train", 1000, kGi, 1);
  gpu.tolerations.push_back({"team", false, "ml", TaintEffect::NoSchedule});
  const Plan p = plan_for(w, {gpu, make_pod("cpu", 1000, kGi)});
  ASSERT_EQ(p.launch.size(), 2u);
  for (const LaunchDecision& d : p.launch) {
    if (d.pods[0] == "team-a/train") {
      EXPECT_EQ(d.instance_type, "p3.2xlarge");
      EXPECT_EQ(d.pool, "v100");
      EXPECT_EQ(w.catalog.offerings[d.offering_index].taints.size(), 1u);
    } else {
      EXPECT_EQ(d.pool, "cpu");
      EXPECT_EQ(w.catalog.offerings[d.offering_index].allocatable.gpus, 0);
    }
  }
  // A pod selecting the pool's label without tolerating its taint gets no node.
  Pod selecting = make_pod("sel", 1000, kGi);
  selecting.node_selector["team"] = "ml";
  const Plan q = plan_for(w, {selecting});
  EXPECT_TRUE(q.launch.empty());
  ASSERT_EQ(q.unschedulable.size(), 1u);
  EXPECT_NE(q.unschedulable[0].reason.find("team=ml:NoSchedule"), std::string::npos);
}

TEST(PlannerPools, HigherWeightFirstUntilItsLimitThenTheNextForWholeJobs) {
  const World w = world(R"(
pools:
  - name: preferred
    weight: 50
    requirements: [{key: fitscale.io/instance-family, operator: In, values: [m5]}]
    limits: {nodes: 2}
  - name: cheap
    requirements: [{key: fitscale.io/instance-family, operator: In, values: [c5]}]
)");
  // Three one-node jobs: the first two fill the weighted pool, the third goes to the other.
  std::vector<Pod> pods;
  for (int i = 0; i < 3; ++i) {
    Pod pod = make_pod("j" + std::to_string(i), 3000, 6 * kGi);
    pod.created = i;
    pods.push_back(pod);
  }
  const Plan p = plan_for(w, pods);
  int preferred = 0;
  int cheap = 0;
  for (const LaunchDecision& d : p.launch) (d.pool == "preferred" ? preferred : cheap) += d.count;
  EXPECT_EQ(preferred, 2);
  EXPECT_EQ(cheap, 1);

  // One job of three pods, one per node, does not fit the limit: all of it goes elsewhere.
  std::vector<Pod> job;
  for (int i = 0; i < 3; ++i) {
    Pod pod = make_pod("w" + std::to_string(i), 3000, 6 * kGi);
    pod.owner = {"Job", "wide", "uid-wide"};
    job.push_back(pod);
  }
  const Plan q = plan_for(w, job);
  ASSERT_EQ(q.launch.size(), 1u);
  EXPECT_EQ(q.launch[0].pool, "cheap");
  EXPECT_EQ(q.launch[0].count, 3);

  // Nodes the pool already has count: with two in flight, nothing more goes there.
  std::vector<Node> nodes;
  for (int i = 0; i < 2; ++i) {
    Node n;
    n.name = "i-" + std::to_string(i);
    n.state = NodeState::InFlight;
    n.managed = true;
    n.instance_type = "m5.xlarge";
    n.labels = {{"fitscale.io/pool", "preferred"}};
    nodes.push_back(n);
  }
  const Plan r = plan_for(w, {make_pod("late", 3000, 6 * kGi)}, nodes);
  ASSERT_EQ(r.launch.size(), 1u);
  EXPECT_EQ(r.launch[0].pool, "cheap");
}

TEST(PlannerPools, AFullPoolWithNoOtherSaysWhichLimit) {
  const World w = world(R"(
pools:
  - name: only
    requirements: [{key: fitscale.io/instance-family, operator: In, values: [m5]}]
    limits: {nodes: 0}
)");
  const Plan p = plan_for(w, {make_pod("x", 1000, kGi)});
  EXPECT_TRUE(p.launch.empty());
  ASSERT_EQ(p.unschedulable.size(), 1u);
  EXPECT_EQ(p.unschedulable[0].kind, UnschedulableKind::BudgetWait);
  EXPECT_NE(p.unschedulable[0].reason.find("pool only"), std::string::npos)
      << p.unschedulable[0].reason;
}

TEST(PlannerPools, ArmPoolOnlyForPodsThatSelectArm) {
  const World w = world(R"(
pools:
  - name: arm
    weight: 10
    requirements: [{key: kubernetes.io/arch, operator: In, values: [arm64]}]
    taints: [{key: arch, value: arm64, effect: NoSchedule}]
  - name: x86
    requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]},
                   {key: fitscale.io/current-generation, operator: In, values: ["true"]},
                   {key: fitscale.io/gpu-count, operator: DoesNotExist}]
)");
  Pod arm = make_pod("arm", 1000, kGi);
  arm.tolerations.push_back({"arch", false, "arm64", TaintEffect::NoSchedule});
  const Plan p = plan_for(w, {arm, make_pod("plain", 1000, kGi)});
  ASSERT_EQ(p.launch.size(), 2u);
  for (const LaunchDecision& d : p.launch) {
    EXPECT_EQ(d.instance_type, d.pods[0] == "team-a/arm" ? "m6g.xlarge" : "c5.xlarge");
  }
}

}  // namespace
}  // namespace fitscale
