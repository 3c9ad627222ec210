#include "model/pod.h"

#include <gtest/gtest.h>

#include "model/error.h"
#include "model/node.h"

namespace fitscale {
namespace {

Pod make_pod() {
  Pod p;
  p.ns = "team-a";
  p.name = "train-0";
  return p;
}

TEST(Pod, DoNotDisruptAnnotations) {
  Pod p = make_pod();
  EXPECT_FALSE(p.do_not_disrupt());
  p.annotations = {{"fitscale.io/do-not-disrupt", "true"}};
  EXPECT_TRUE(p.do_not_disrupt());
  p.annotations = {{"karpenter.sh/do-not-disrupt", "true"}};
  EXPECT_TRUE(p.do_not_disrupt());
  p.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "false"}};
  EXPECT_TRUE(p.do_not_disrupt());
  p.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "true"}};
  EXPECT_FALSE(p.do_not_disrupt());
  p.annotations = {{"fitscale.io/do-not-disrupt", "false"}};
  EXPECT_FALSE(p.do_not_disrupt());
}

TEST(Pod, RequiresOnDemandFromNodeSelector) {
  Pod p = make_pod();
  EXPECT_FALSE(p.requires_on_demand());
  p.node_selector = {{"fitscale.io/capacity-type", "on-demand"}};
  EXPECT_TRUE(p.requires_on_demand());
  p.node_selector = {{"karpenter.sh/capacity-type", "on-demand"}};
  EXPECT_TRUE(p.requires_on_demand());
  p.node_selector = {{"fitscale.io/capacity-type", "spot"}};
  EXPECT_FALSE(p.requires_on_demand());
}

TEST(Pod, RequiresOnDemandOnlyWhenEveryAffinityTermPinsIt) {
  Pod p = make_pod();
  const Requirement on_demand{"fitscale.io/capacity-type", SelectorOp::In, {"on-demand"}};
  const Requirement not_spot{"karpenter.sh/capacity-type", SelectorOp::NotIn, {"spot"}};
  const Requirement either{"fitscale.io/capacity-type", SelectorOp::In, {"spot", "on-demand"}};
  const Requirement zone{"topology.kubernetes.io/zone", SelectorOp::In, {"us-east-1a"}};
  p.required_node_affinity = {NodeSelectorTerm{{zone, on_demand}}};
  EXPECT_TRUE(p.requires_on_demand());
  p.required_node_affinity = {NodeSelectorTerm{{not_spot}}};
  EXPECT_TRUE(p.requires_on_demand());
  p.required_node_affinity = {NodeSelectorTerm{{on_demand}}, NodeSelectorTerm{{zone}}};
  EXPECT_FALSE(p.requires_on_demand()) << "the second term admits spot";
  p.required_node_affinity = {NodeSelectorTerm{{either}}};
  EXPECT_FALSE(p.requires_on_demand());
}

TEST(Pod, DeclaredMaxRuntime) {
  Pod p = make_pod();
  EXPECT_EQ(p.declared_max_runtime(), std::nullopt);
  p.annotations = {{"fitscale.io/max-runtime", "36h"}};
  EXPECT_EQ(p.declared_max_runtime(), 36 * 3600);
  p.active_deadline_s = 600;
  EXPECT_EQ(p.declared_max_runtime(), 600) << "activeDeadlineSeconds wins";
  p.active_deadline_s.reset();
  p.annotations = {{"fitscale.io/max-runtime", "forever"}};
  try {
    p.declared_max_runtime();
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find(
            "pod team-a/train-0: annotation fitscale.io/max-runtime: bad duration \"forever\""),
        std::string::npos)
        << e.what();
  }
}

TEST(Pod, JobKey) {
  Pod p = make_pod();
  EXPECT_EQ(p.job_key(), "train-0");
  p.owner = {"Job", "train", "uid-1"};
  EXPECT_EQ(p.job_key(), "train");
  p.labels = {{"fitscale.io/job", "sim-job-7"}};
  EXPECT_EQ(p.job_key(), "sim-job-7");
  p.gang = Gang{"big-run", 2};
  EXPECT_EQ(p.job_key(), "big-run");
  p.gang.reset();
  p.labels.clear();
  p.owner = {"ReplicaSet", "web-abc", "uid-2"};
  EXPECT_EQ(p.job_key(), "train-0");
}

TEST(Pod, OwnerKinds) {
  Pod p = make_pod();
  EXPECT_TRUE(p.is_batch());
  p.owner.kind = "Job";
  EXPECT_TRUE(p.is_batch());
  p.owner.kind = "DaemonSet";
  EXPECT_TRUE(p.is_daemon());
  EXPECT_FALSE(p.is_batch());
  p.owner.kind = "Node";
  EXPECT_TRUE(p.is_mirror());
}

Pod bound(PodPhase phase, const std::string& owner_kind = "Job") {
  Pod p = make_pod();
  p.node_name = "n1";
  p.phase = phase;
  p.owner.kind = owner_kind;
  return p;
}

TEST(PodLifecycle, Finished) {
  EXPECT_TRUE(bound(PodPhase::Succeeded).finished());
  EXPECT_TRUE(bound(PodPhase::Failed).finished());
  for (PodPhase ph : {PodPhase::Pending, PodPhase::Running, PodPhase::Unknown})
    EXPECT_FALSE(bound(ph).finished()) << to_string(ph);
}

TEST(PodLifecycle, HoldsResourcesWhileBoundAndNotFinishedTerminatingAndUnknownIncluded) {
  EXPECT_TRUE(bound(PodPhase::Running).holds_resources());
  EXPECT_TRUE(bound(PodPhase::Unknown).holds_resources()) << "kube-scheduler still counts it";
  Pod t = bound(PodPhase::Running);
  t.terminating = true;
  EXPECT_TRUE(t.holds_resources()) << "room is free only once the pod is gone";
  EXPECT_FALSE(bound(PodPhase::Succeeded).holds_resources());
  EXPECT_FALSE(make_pod().holds_resources()) << "unbound";
}

TEST(PodLifecycle, CapacityNodeIsTheBoundNodeElseTheNominatedOne) {
  Pod p = make_pod();
  EXPECT_EQ(p.capacity_node(), nullptr);
  p.nominated_node = "n9";
  ASSERT_NE(p.capacity_node(), nullptr);
  EXPECT_EQ(*p.capacity_node(), "n9");
  p.terminating = true;
  EXPECT_EQ(p.capacity_node(), nullptr);
  Pod b = bound(PodPhase::Running);
  EXPECT_EQ(*b.capacity_node(), "n1");
}

TEST(PodLifecycle, PinsNodeBatchOrDoNotDisruptPodsThatHoldResources) {
  EXPECT_TRUE(bound(PodPhase::Running).pins_node());
  EXPECT_TRUE(bound(PodPhase::Pending).pins_node());
  EXPECT_TRUE(bound(PodPhase::Running, "").pins_node()) << "a bare pod is batch";
  Pod t = bound(PodPhase::Running);
  t.terminating = true;
  EXPECT_TRUE(t.pins_node()) << "it may be using its grace period: pinned until it is gone";
  EXPECT_TRUE(bound(PodPhase::Unknown).pins_node()) << "it may still run (the NotReady rule "
                                                       "removes a dead node regardless)";
  EXPECT_FALSE(bound(PodPhase::Succeeded).pins_node());
  EXPECT_FALSE(bound(PodPhase::Running, "ReplicaSet").pins_node());
  EXPECT_FALSE(bound(PodPhase::Running, "DaemonSet").pins_node());
  EXPECT_FALSE(bound(PodPhase::Running, "Node").pins_node());
  Pod dnd = bound(PodPhase::Running, "ReplicaSet");
  dnd.annotations = {{"karpenter.sh/do-not-disrupt", "true"}};
  EXPECT_TRUE(dnd.pins_node());
  EXPECT_FALSE(make_pod().pins_node()) << "unbound";
}

TEST(PodLifecycle, MeteredWhileItHoldsResourcesButNotDaemonsOrMirrors) {
  EXPECT_TRUE(bound(PodPhase::Running).metered());
  EXPECT_TRUE(bound(PodPhase::Running, "ReplicaSet").metered());
  Pod t = bound(PodPhase::Running);
  t.terminating = true;
  EXPECT_TRUE(t.metered()) << "it still takes its share until it is gone";
  EXPECT_TRUE(bound(PodPhase::Unknown).metered()) << "it holds its room as kube-scheduler counts";
  EXPECT_FALSE(bound(PodPhase::Failed).metered());
  EXPECT_FALSE(bound(PodPhase::Running, "DaemonSet").metered());
  EXPECT_FALSE(make_pod().metered());
}

TEST(PodLifecycle, APodThatHoldsNothingPinsMetersAndIsEvictedNowhere) {
  for (PodPhase ph : {PodPhase::Pending, PodPhase::Running, PodPhase::Succeeded, PodPhase::Failed,
                      PodPhase::Unknown}) {
    for (const char* kind : {"Job", "", "ReplicaSet", "DaemonSet"}) {
      for (bool terminating : {false, true}) {
        for (bool on_node : {false, true}) {
          Pod p = bound(ph, kind);
          p.terminating = terminating;
          if (!on_node) p.node_name.clear();
          if (p.holds_resources()) continue;
          EXPECT_FALSE(p.pins_node()) << to_string(ph) << " " << kind;
          EXPECT_FALSE(p.metered()) << to_string(ph) << " " << kind;
          EXPECT_FALSE(p.evictable_service()) << to_string(ph) << " " << kind;
        }
      }
    }
  }
}

TEST(PodLifecycle, EvictableServiceIsALiveNonBatchPod) {
  EXPECT_TRUE(bound(PodPhase::Running, "ReplicaSet").evictable_service());
  EXPECT_TRUE(bound(PodPhase::Running, "StatefulSet").evictable_service());
  EXPECT_FALSE(bound(PodPhase::Running, "Job").evictable_service());
  EXPECT_FALSE(bound(PodPhase::Running, "DaemonSet").evictable_service());
  Pod t = bound(PodPhase::Running, "ReplicaSet");
  t.terminating = true;
  EXPECT_FALSE(t.evictable_service()) << "being deleted already";
  EXPECT_FALSE(bound(PodPhase::Succeeded, "ReplicaSet").evictable_service());
  Pod dnd = bound(PodPhase::Running, "ReplicaSet");
  dnd.annotations = {{"fitscale.io/do-not-disrupt", "true"}};
  EXPECT_FALSE(dnd.evictable_service());
}

TEST(PodLifecycle, UnschedulableIsKubernetesPending) {
  Pod p = make_pod();
  EXPECT_TRUE(p.unschedulable());
  Pod gated = p;
  gated.scheduling_gates = {"example.io/gate"};
  EXPECT_FALSE(gated.unschedulable());
  Pod nominated = p;
  nominated.nominated_node = "n1";
  EXPECT_FALSE(nominated.unschedulable());
  Pod fresh = p;
  fresh.scheduler_verdict = SchedulerVerdict::NotYet;
  EXPECT_FALSE(fresh.unschedulable());
  Pod gone = p;
  gone.terminating = true;
  EXPECT_FALSE(gone.unschedulable());
  Pod daemon = p;
  daemon.owner.kind = "DaemonSet";
  EXPECT_FALSE(daemon.unschedulable());
  EXPECT_FALSE(bound(PodPhase::Pending).unschedulable());
}

// A pod held only by fitscale's budget gate is not pending (kube-scheduler never looked at it)
// but awaits capacity: budget admission decides for it. Any other gate holds it back first.
TEST(PodLifecycle, HeldByBudgetGateIsNotPendingButAwaitsCapacity) {
  Pod p = make_pod();
  p.scheduler_verdict = SchedulerVerdict::NotYet;  // gated pods get SchedulingGated, not a verdict
  p.scheduling_gates = {"fitscale.io/budget"};
  EXPECT_TRUE(p.held_by_budget_gate());
  EXPECT_FALSE(p.unschedulable());
  EXPECT_TRUE(p.awaits_capacity());
  Pod kueue = p;
  kueue.scheduling_gates = {"kueue.x-k8s.io/admission", "fitscale.io/budget"};
  EXPECT_FALSE(kueue.held_by_budget_gate());
  EXPECT_FALSE(kueue.awaits_capacity());
  Pod other = p;
  other.scheduling_gates = {"example.io/gate"};
  EXPECT_FALSE(other.held_by_budget_gate());
  Pod gone = p;
  gone.terminating = true;
  EXPECT_FALSE(gone.held_by_budget_gate());
  Pod daemon = p;
  daemon.owner.kind = "DaemonSet";
  EXPECT_FALSE(daemon.held_by_budget_gate());
  Pod nominated = p;
  nominated.nominated_node = "n1";
  EXPECT_FALSE(nominated.held_by_budget_gate());
  Pod ungated = make_pod();
  EXPECT_FALSE(ungated.held_by_budget_gate());
  EXPECT_TRUE(ungated.awaits_capacity());
}

TEST(Names, EnumsPrintAsKubernetesAndFitscaleSpellThem) {
  EXPECT_STREQ(to_string(PodPhase::Pending), "Pending");
  EXPECT_STREQ(to_string(PodPhase::Succeeded), "Succeeded");
  EXPECT_STREQ(to_string(CapacityType::Spot), "spot");
  EXPECT_STREQ(to_string(CapacityType::OnDemand), "on-demand");
  EXPECT_STREQ(to_string(NodeState::InFlight), "in-flight");
  EXPECT_STREQ(to_string(NodeState::Ready), "ready");
}

}  // namespace
}  // namespace fitscale
