// The one feasibility check (planner/predicates.h): each step's misfit, with the numbers a
// message needs, in kube-scheduler's order; and what counts as coming capacity.
#include <gtest/gtest.h>

#include "fixtures.h"
#include "planner/predicates.h"

namespace fitscale::testing {
namespace {

using planner::Misfit;
using planner::MisfitKind;

struct Case {
  Node node = make_node("n1", 4000, 8 * kGi);
  Pod pod = make_pod("p", 1000, kGi);
  std::vector<const Pod*> residents;
  bool coming = false;
  Misfit run() const {
    const planner::NodeSide side{node, node.labels, node.allocatable, residents, {}, true, coming};
    return planner::misfit(planner::needs_of(pod), side);
  }
};

TEST(Feasibility, APodThatFitsHasNoMisfit) {
  Case c;
  EXPECT_FALSE(c.run());
  EXPECT_EQ(c.run().kind, MisfitKind::None);
}

TEST(Feasibility, ResourcesShortSaysWhichAndByWhat) {
  Case c;
  c.pod.requests.gpus = 2;
  c.node.allocatable.gpus = 1;
  const Misfit m = c.run();
  EXPECT_EQ(m.kind, MisfitKind::Resources);
  EXPECT_EQ(m.resource, "nvidia.com/gpu");
  EXPECT_EQ(m.wanted, 2);
  EXPECT_EQ(m.free, 1);
  EXPECT_EQ(planner::scheduler_reason(m), "Insufficient nvidia.com/gpu");
  EXPECT_EQ(planner::describe(m), "needs 2 nvidia.com/gpu, 1 free");
  c.pod.requests.gpus = 0;
  c.pod.requests.cpu_milli = 4500;
  EXPECT_EQ(planner::describe(c.run()), "needs 4500m cpu, 4000m free");
  c.pod.requests.cpu_milli = 100;
  c.pod.requests.extended = {{"example.com/fpga", 1}};
  EXPECT_EQ(c.run().resource, "example.com/fpga") << "a resource the node lacks is never free";
}

TEST(Feasibility, TaintNotToleratedNamesTheTaint) {
  Case c;
  c.node.taints = {Taint{"soft", "x", TaintEffect::PreferNoSchedule},
                   Taint{"nvidia.com/gpu", "true", TaintEffect::NoSchedule}};
  const Misfit m = c.run();
  ASSERT_EQ(m.kind, MisfitKind::Taint);
  EXPECT_EQ(m.taint->key, "nvidia.com/gpu");
  EXPECT_EQ(planner::scheduler_reason(m), "node(s) had untolerated taint {nvidia.com/gpu: true}");
  c.pod.tolerations = {Toleration{"nvidia.com/gpu", true, "", std::nullopt}};
  EXPECT_FALSE(c.run()) << "PreferNoSchedule never blocks";
}

TEST(Feasibility, SelectorAffinityAndArch) {
  Case c;
  c.node.labels[std::string(label::kArch)] = "arm64";
  c.pod.node_selector = {{std::string(label::kArch), "amd64"}};
  EXPECT_EQ(c.run().kind, MisfitKind::NodeAffinity);
  c.pod.node_selector.clear();
  NodeSelectorTerm t;
  t.requirements.push_back(Requirement{std::string(label::kZone), SelectorOp::In, {"us-east-1b"}});
  c.pod.required_node_affinity = {t};
  EXPECT_EQ(c.run().kind, MisfitKind::NodeAffinity);
  EXPECT_EQ(planner::scheduler_reason(c.run()),
            "node(s) didn't match Pod's node affinity/selector");
}

TEST(Feasibility, NodeStateCordonRemovalAndReadiness) {
  Case c;
  c.node.unschedulable = true;
  EXPECT_EQ(c.run().kind, MisfitKind::NodeUnschedulable);
  c.node.unschedulable = false;
  c.node.state = NodeState::Deleting;
  EXPECT_EQ(c.run().kind, MisfitKind::NodeBeingRemoved);
  c.node.state = NodeState::Ready;
  c.node.interruption_notice = true;
  EXPECT_EQ(c.run().kind, MisfitKind::NodeBeingRemoved);
  c.node.interruption_notice = false;
  c.node.state = NodeState::Registered;
  EXPECT_EQ(c.run().kind, MisfitKind::NodeNotReady) << "a binder binds to Ready nodes only";
  c.coming = true;
  EXPECT_FALSE(c.run()) << "the planner counts it as capacity on its way";
}

TEST(Feasibility, OnDemandPodNeverOnASpotNodeFitscaleLaunched) {
  Case c;
  c.pod.node_selector = {{std::string(label::kCapacityType), "on-demand"}};
  c.node.labels[std::string(label::kCapacityType)] = "on-demand";
  c.node.managed = true;
  c.node.capacity_type = CapacityType::Spot;  // what the instance says wins
  EXPECT_EQ(c.run().kind, MisfitKind::CapacityType);
}

TEST(Feasibility, GpusNotReportedYetAreComingForTheGpuPodOnly) {
  Case c;
  c.node.gpus_unreported = true;
  c.node.allocatable.gpus = 1;  // the offering's, as the snapshot builder sets it
  c.pod.requests.gpus = 1;
  EXPECT_EQ(c.run().kind, MisfitKind::GpusUnreported);
  c.coming = true;
  EXPECT_FALSE(c.run());
  c.coming = false;
  c.pod.requests.gpus = 0;
  EXPECT_FALSE(c.run()) << "a CPU pod may bind now";
}

TEST(Feasibility, AntiAffinityEitherWayNamesTheOtherPod) {
  Case c;
  Pod resident = make_pod("r", 100, kGi);
  resident.node_name = "n1";
  resident.labels = {{"app", "db"}};
  LabelSelector s;
  s.match_labels = {{"app", "db"}};
  c.pod.anti_affinity_hostname = {s};
  c.residents = {&resident};
  Misfit m = c.run();
  ASSERT_EQ(m.kind, MisfitKind::PodAntiAffinity);
  EXPECT_EQ(m.other, &resident);
  EXPECT_EQ(planner::describe(m), "anti-affinity with pod team-a/r");
  // The resident's own terms refuse the incoming pod too.
  c.pod.anti_affinity_hostname.clear();
  c.pod.labels = {{"app", "db"}};
  resident.anti_affinity_hostname = {s};
  EXPECT_EQ(c.run().kind, MisfitKind::PodAntiAffinity);
}

TEST(Feasibility, StepsRunInKubeSchedulersOrder) {
  Case c;
  c.node.unschedulable = true;
  c.node.taints = {Taint{"x", "y", TaintEffect::NoSchedule}};
  c.pod.requests.cpu_milli = 99'000;
  EXPECT_EQ(c.run().kind, MisfitKind::NodeUnschedulable);
  c.node.unschedulable = false;
  EXPECT_EQ(c.run().kind, MisfitKind::Taint);
  c.node.taints.clear();
  EXPECT_EQ(c.run().kind, MisfitKind::Resources);
}

}  // namespace
}  // namespace fitscale::testing
