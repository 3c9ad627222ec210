// The real Controller and planner against in-memory cluster, cloud and clock: what a user
// would see it do (launches, back-off, removals, drains, events), loop by loop.
#include "controller/controller.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "fakes.h"

namespace fitscale::testing {
namespace {

constexpr Time kStart = 1'780'000'000;

// The node's taint of that key, or null (an idle node also carries the reclaim taint).
const Taint* taint_of(const Node& n, const std::string& key) {
  auto it =
      std::find_if(n.taints.begin(), n.taints.end(), [&](const Taint& t) { return t.key == key; });
  return it == n.taints.end() ? nullptr : &*it;
}

ControllerOptions with_policy(Policy p) {
  ControllerOptions o;
  o.policy = std::move(p);
  return o;
}

struct World {
  explicit World(ControllerOptions options = with_policy(tiny_policy()), Catalog c = tiny_catalog())
      : catalog(std::move(c)), clock(kStart), cloud(clock) {
    controller =
        std::make_unique<Controller>(cluster, cloud, catalog, clock, nullptr, recorder, options);
  }
  Catalog catalog;
  FakeClock clock;
  FakeCluster cluster;
  FakeCloud cloud;
  NullRecorder recorder;
  std::unique_ptr<Controller> controller;

  LoopResult loop() { return controller->reconcile(); }
  // A managed node that was launched and registered before the controller started.
  Node& existing_node(const std::string& id, Time launched_at) {
    const Instance& inst =
        cloud.add_instance(id, "small", "us-east-1a", CapacityType::Spot, launched_at, 100'000);
    return cluster.register_node(inst, catalog);
  }
};

TEST(Controller, PendingPodLaunchesOnceWhileItsInstanceIsInFlight) {
  World w;
  w.cluster.add_pod(make_pod("train", 1000, 2 * kGi));
  EXPECT_EQ(w.loop().launched, 1);
  ASSERT_EQ(w.cloud.requests.size(), 1u);
  EXPECT_EQ(w.cloud.requests[0].instance_type, "small");
  EXPECT_EQ(w.cloud.requests[0].capacity_type, CapacityType::Spot);

  w.clock.advance(10);
  w.cluster.touch();  // something else changed in the cluster; the pod is still pending
  const LoopResult second = w.loop();
  EXPECT_TRUE(second.planned);
  EXPECT_EQ(second.launched, 0);
  EXPECT_EQ(w.cloud.launched_count(), 1);

  // The node registers: still nothing new to launch.
  w.clock.advance(60);
  w.cluster.register_node(w.cloud.instances.at(0), w.catalog);
  EXPECT_EQ(w.loop().launched, 0);
  EXPECT_EQ(w.cloud.launched_count(), 1);
}

TEST(Controller, CapacityErrorBacksOffTheOfferingAndFallsBackToTheNextCheapest) {
  ControllerOptions o = with_policy(tiny_policy());
  o.offering_backoff_s = 300;
  // One type, so the next cheapest offering is its on-demand twin (with more spot types, the
  // planner prefers the next cheapest spot one).
  World w(o, make_catalog({TypeSpec("small", 4000, 16 * kGi, 0, 0.10, 0.20)}, {"us-east-1a"}));
  w.cloud.failing["small/us-east-1a/spot"] =
      LaunchFailure{"", 0, "InsufficientInstanceCapacity", "no spot capacity", true};
  w.cluster.add_pod(make_pod("train", 1000, 2 * kGi));

  EXPECT_EQ(w.loop().launched, 0);
  ASSERT_EQ(w.cloud.requests.size(), 1u);

  w.clock.advance(10);
  EXPECT_EQ(w.loop().launched, 1);
  ASSERT_EQ(w.cloud.requests.size(), 2u);
  EXPECT_EQ(w.cloud.requests[1].instance_type, "small");
  EXPECT_EQ(w.cloud.requests[1].capacity_type, CapacityType::OnDemand);

  // After the back-off the spot offering is tried again (for the next pod that needs a node).
  w.cloud.failing.clear();
  w.clock.set(kStart + 299);
  w.cluster.add_pod(make_pod("second", 4000, 2 * kGi));
  w.loop();
  ASSERT_EQ(w.cloud.requests.size(), 3u);
  EXPECT_NE(w.cloud.requests[2].capacity_type, CapacityType::Spot) << "still backed off at 299 s";

  w.clock.set(kStart + 301);
  w.cluster.add_pod(make_pod("third", 4000, 2 * kGi));
  w.loop();
  ASSERT_EQ(w.cloud.requests.size(), 4u);
  EXPECT_EQ(w.cloud.requests[3].instance_type, "small");
  EXPECT_EQ(w.cloud.requests[3].capacity_type, CapacityType::Spot);
}

TEST(Controller, NonCapacityErrorDoesNotBackOffTheOffering) {
  World w;
  w.cloud.failing["small/us-east-1a/spot"] =
      LaunchFailure{"", 0, "AuthFailure", "bad credentials", false};
  w.cluster.add_pod(make_pod("train", 1000, 2 * kGi));
  w.loop();
  w.clock.advance(10);
  w.loop();
  ASSERT_EQ(w.cloud.requests.size(), 2u);
  // Retried on the same offering: an auth failure says nothing about capacity.
  EXPECT_EQ(w.cloud.requests[1].instance_type, "small");
  EXPECT_EQ(w.cloud.requests[1].capacity_type, CapacityType::Spot);
  EXPECT_EQ(w.cloud.launched_count(), 0);
}

TEST(Controller, InstanceThatNeverRegistersIsTerminatedAfterTheTimeout) {
  World w;
  w.cluster.add_pod(make_pod("train", 1000, 2 * kGi));
  w.loop();
  ASSERT_EQ(w.cloud.instances.size(), 1u);
  const std::string id = w.cloud.instances[0].id;

  w.clock.set(kStart + 900);
  w.loop();
  EXPECT_TRUE(w.cloud.terminated.empty()) << "terminated at the timeout, not after it";

  w.clock.set(kStart + 901);
  w.loop();
  ASSERT_EQ(w.cloud.terminated.size(), 1u);
  EXPECT_EQ(w.cloud.terminated[0], id);
}

TEST(Controller, EmptyNodeIsRemovedAfterTheTtlAndNotBefore) {
  World w;
  w.existing_node("i-empty", kStart - 3600);
  w.loop();  // first seen empty at kStart
  w.clock.set(kStart + 60);
  w.loop();
  EXPECT_TRUE(w.cluster.cordoned.empty());
  EXPECT_TRUE(w.cloud.terminated.empty());
  EXPECT_TRUE(w.cluster.has_node("node-i-empty"));

  // Cordoned first, deleted on a later loop once it is seen still empty.
  w.clock.set(kStart + 61);
  EXPECT_EQ(w.loop().removed, 0);
  EXPECT_EQ(w.cluster.cordoned, std::vector<std::string>{"node-i-empty"});
  EXPECT_TRUE(w.cluster.deleted.empty());
  w.clock.set(kStart + 62);
  EXPECT_EQ(w.loop().removed, 1);
  EXPECT_EQ(w.cluster.deleted, std::vector<std::string>{"node-i-empty"});
  EXPECT_EQ(w.cloud.terminated, std::vector<std::string>{"i-empty"});
}

TEST(Controller, APodBoundBetweenTheSnapshotAndTheCordonKeepsItsNodeAndRuns) {
  // kube-scheduler binds a pod to the empty node in the instant between the snapshot that
  // found it empty and the cordon: deleting it then would fail the pod (issue 20).
  World w;
  w.existing_node("i-late", kStart - 3600);
  w.loop();
  w.clock.set(kStart + 61);
  w.loop();
  ASSERT_EQ(w.cluster.cordoned, std::vector<std::string>{"node-i-late"});
  const Taint* mark = taint_of(w.cluster.state.nodes[0], "fitscale.io/to-be-deleted");
  ASSERT_NE(mark, nullptr);
  EXPECT_EQ(mark->effect, TaintEffect::NoSchedule);
  Pod late = make_pod("late", 500, kGi);
  late.node_name = "node-i-late";  // bound, still Pending: the kubelet has not started it
  w.cluster.add_pod(late);

  w.clock.set(kStart + 62);
  EXPECT_EQ(w.loop().removed, 0);
  EXPECT_TRUE(w.cluster.deleted.empty());
  EXPECT_TRUE(w.cloud.terminated.empty());
  EXPECT_EQ(w.cluster.uncordoned, std::vector<std::string>{"node-i-late"});
  ASSERT_TRUE(w.cluster.has_node("node-i-late"));
  EXPECT_FALSE(w.cluster.state.nodes[0].unschedulable);
  EXPECT_EQ(taint_of(w.cluster.state.nodes[0], "fitscale.io/to-be-deleted"), nullptr)
      << "the to-be-deleted taint is removed";
  EXPECT_NE(taint_of(w.cluster.state.nodes[0], "fitscale.io/reclaim"), nullptr)
      << "and only it: the idle node's reclaim taint stays";
  const auto events = w.cluster.events_about("node-i-late");
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().reason, "RemovalCancelled");
  EXPECT_EQ(events.back().message,
            "fitscale keeps this node: pod team-a/late was bound to it after the cordon");

  // The pod runs and finishes; the node is idle again and goes after emptyAfter, in two steps.
  w.cluster.pod("late").phase = PodPhase::Running;
  w.cluster.touch();
  w.clock.set(kStart + 100);
  w.loop();
  std::erase_if(w.cluster.state.pods, [](const Pod& p) { return p.name == "late"; });
  w.cluster.touch();
  w.clock.set(kStart + 101);
  w.loop();
  EXPECT_TRUE(w.cluster.has_node("node-i-late"));
  w.clock.set(kStart + 162);
  w.loop();
  w.clock.set(kStart + 163);
  EXPECT_EQ(w.loop().removed, 1);
  EXPECT_EQ(w.cloud.terminated, std::vector<std::string>{"i-late"});
}

TEST(Controller, ARestartBetweenTheTwoStepsFinishesOrGivesBackTheNodesAnEarlierRunCordoned) {
  World w;
  const Taint mark{"fitscale.io/to-be-deleted", std::to_string(kStart - 5),
                   TaintEffect::NoSchedule};
  Node& empty = w.existing_node("i-empty", kStart - 3600);
  empty.unschedulable = true;
  empty.taints.push_back(mark);
  Node& busy = w.existing_node("i-busy", kStart - 3600);
  busy.unschedulable = true;
  busy.taints.push_back(mark);
  Pod late = make_pod("late", 500, kGi);
  late.node_name = "node-i-busy";
  w.cluster.add_pod(late);
  w.loop();  // adopts both
  w.clock.set(kStart + 1);
  EXPECT_EQ(w.loop().removed, 1);
  EXPECT_EQ(w.cluster.deleted, std::vector<std::string>{"node-i-empty"});
  EXPECT_EQ(w.cloud.terminated, std::vector<std::string>{"i-empty"});
  ASSERT_TRUE(w.cluster.has_node("node-i-busy"));
  EXPECT_EQ(w.cluster.uncordoned, std::vector<std::string>{"node-i-busy"});
  for (const auto& n : w.cluster.state.nodes) {
    EXPECT_FALSE(n.unschedulable) << n.name;
    EXPECT_EQ(taint_of(n, "fitscale.io/to-be-deleted"), nullptr) << n.name;
  }
}

TEST(Controller, AStopRequestEndsTheLoopAtTheNextCheckpointAndTheNextLoopPlansAgain) {
  bool stop = true;
  int checks = 0;
  ControllerOptions o = with_policy(tiny_policy());
  o.checkpoint = [&] {
    ++checks;
    return stop;
  };
  World w(o);
  w.cluster.add_pod(make_pod("train", 500, kGi));
  const LoopResult stopped = w.loop();
  EXPECT_TRUE(stopped.stopped);
  EXPECT_FALSE(stopped.planned);
  EXPECT_EQ(w.cloud.launched_count(), 0);
  EXPECT_EQ(checks, 1);
  // Not stopped (a replica whose SIGTERM was a false alarm cannot exist, but a loop cut short
  // must not have lost what it had to do): nothing changed, yet the next loop plans and launches.
  stop = false;
  const LoopResult next = w.loop();
  EXPECT_TRUE(next.planned);
  EXPECT_EQ(next.launched, 1);
}

TEST(Controller, NodeRunningABatchPodIsNeverRemoved) {
  World w;
  w.existing_node("i-busy", kStart - 3600);
  Pod job = make_pod("train", 1000, 2 * kGi);
  job.node_name = "node-i-busy";
  job.phase = PodPhase::Running;
  w.cluster.add_pod(job);
  for (Seconds t : {0, 61, 3600, 7 * 86400}) {
    w.clock.set(kStart + t);
    w.cluster.touch();
    w.loop();
  }
  EXPECT_TRUE(w.cluster.cordoned.empty());
  EXPECT_TRUE(w.cluster.deleted.empty());
  EXPECT_TRUE(w.cloud.terminated.empty());
}

TEST(Controller, DrainBlockedByDisruptionBudgetUncordonsTheNodeThenFinishesLater) {
  World w;
  w.existing_node("i-svc", kStart - 3600);
  // Room for the service pod elsewhere, or scale-down would keep the node anyway.
  w.cluster.state.nodes.push_back(make_node("spare", 4000, 16 * kGi, "us-east-1a"));
  w.cluster.add_pod(service_pod("web", "node-i-svc"));
  w.cluster.evict_outcome = EvictOutcome::BlockedByBudget;
  w.loop();
  w.clock.set(kStart + 61);
  EXPECT_EQ(w.loop().removed, 0);
  EXPECT_EQ(w.cluster.cordoned, std::vector<std::string>{"node-i-svc"});
  // The budget blocks the drain: the node is schedulable again, not cordoned for good.
  EXPECT_EQ(w.cluster.uncordoned, std::vector<std::string>{"node-i-svc"});
  EXPECT_TRUE(w.cluster.deleted.empty());
  EXPECT_TRUE(w.cloud.terminated.empty());
  ASSERT_TRUE(w.cluster.has_node("node-i-svc"));
  EXPECT_FALSE(w.cluster.state.nodes[0].unschedulable);

  // It must be empty for emptyAfter again before the next try: nothing happens meanwhile.
  w.clock.advance(30);
  w.cluster.touch();
  EXPECT_EQ(w.loop().removed, 0);
  EXPECT_EQ(w.cluster.cordoned.size(), 1u);

  // The budget allows it now; the node has been idle for emptyAfter since the loop after the
  // blocked try: the pod is evicted, and the node goes on the next loop.
  w.cluster.evict_outcome = EvictOutcome::Evicted;
  w.clock.advance(70);
  w.cluster.touch();
  EXPECT_EQ(w.loop().removed, 0);
  w.clock.advance(1);
  EXPECT_EQ(w.loop().removed, 1);
  EXPECT_EQ(w.cluster.evicted, std::vector<std::string>{"team-a/web"});
  EXPECT_EQ(w.cluster.deleted, std::vector<std::string>{"node-i-svc"});
  EXPECT_EQ(w.cloud.terminated, std::vector<std::string>{"i-svc"});
}

// Counts the controller's actions by kind.
class CountingRecorder final : public Recorder {
 public:
  std::map<ActionKind, int> count;
  std::vector<ActionRecord> records;
  void action(const ActionRecord& r) override {
    ++count[r.kind];
    records.push_back(r);
  }
  void planned(const Snapshot&, const Plan&, const LoopStats&) override {}
  void loop_finished(const LoopStats&) override {}
};

TEST(Controller, ServicePodWithNoRoomElsewhereKeepsItsNodeForHalfAnHourWithoutALaunch) {
  // Issue 13's churn: a node whose only pod is a ReplicaSet's, nothing else to hold it. Removing
  // it evicts the pod into a launch of the same node, removed again 60 s later.
  Catalog catalog = tiny_catalog();
  FakeClock clock(kStart);
  FakeCluster cluster;
  FakeCloud cloud(clock);
  CountingRecorder recorder;
  Controller controller(cluster, cloud, catalog, clock, nullptr, recorder,
                        with_policy(tiny_policy()));
  const Instance& inst = cloud.add_instance("i-svc", "small", "us-east-1a", CapacityType::Spot,
                                            kStart - 3600, 100'000);
  cluster.register_node(inst, catalog);
  cluster.add_pod(service_pod("web", "node-i-svc"));
  for (Seconds t = 0; t <= 30 * 60; t += 10) {  // 30 minutes of 10 s loops
    clock.set(kStart + t);
    cluster.touch();  // something changes every loop: each one plans
    EXPECT_EQ(controller.reconcile().removed, 0) << "at " << t << "s";
  }
  EXPECT_EQ(cloud.launched_count(), 0);
  EXPECT_TRUE(cluster.cordoned.empty());
  EXPECT_TRUE(cluster.evicted.empty());
  EXPECT_TRUE(cloud.terminated.empty());
  // Said once, not every loop.
  ASSERT_EQ(recorder.count[ActionKind::Keep], 1);
  for (const auto& r : recorder.records) {
    if (r.kind == ActionKind::Keep) {
      EXPECT_EQ(r.subject, "node-i-svc");
      EXPECT_NE(r.reason.find("team-a/web fits on no other node"), std::string::npos) << r.reason;
    }
  }
}

TEST(Controller, NotReadyNodeWithTerminatingPodsIsRemovedAfterNotReadyAfter) {
  // Issue 13's dead node: its kubelet stopped, its pods stay Terminating for ever.
  Policy pol = tiny_policy();
  pol.not_ready_after_s = 900;
  World w(with_policy(pol));
  Node& n = w.existing_node("i-dead", kStart - 86400);
  n.state = NodeState::Registered;
  n.not_ready_since = kStart - 100;
  Pod job = make_pod("train", 1000, 2 * kGi);
  job.node_name = "node-i-dead";
  job.phase = PodPhase::Running;
  job.terminating = true;
  w.cluster.add_pod(job);
  w.loop();
  EXPECT_TRUE(w.cloud.terminated.empty()) << "NotReady for 100 s only, though launched a day ago";
  // No change in the cluster: the controller's own timer brings it back.
  w.clock.set(kStart + 801);
  EXPECT_EQ(w.loop().removed, 1);
  EXPECT_EQ(w.cluster.deleted, std::vector<std::string>{"node-i-dead"});
  EXPECT_EQ(w.cloud.terminated, std::vector<std::string>{"i-dead"});
  EXPECT_TRUE(w.cluster.evicted.empty());
}

TEST(Controller, DryRunTakesNoAction) {
  ControllerOptions o = with_policy(tiny_policy());
  o.dry_run = true;
  World w(o);
  w.existing_node("i-empty", kStart - 3600);
  w.cluster.add_pod(make_pod("train", 8000, 2 * kGi));  // does not fit the small node
  const LoopResult first = w.loop();
  EXPECT_TRUE(first.planned);
  EXPECT_FALSE(first.acted);
  w.clock.set(kStart + 3600);
  w.cluster.touch();
  w.loop();
  EXPECT_TRUE(w.cloud.requests.empty());
  EXPECT_TRUE(w.cloud.terminated.empty());
  EXPECT_TRUE(w.cluster.cordoned.empty());
  EXPECT_TRUE(w.cluster.deleted.empty());
}

TEST(Controller, UnsyncedViewCausesNoAction) {
  World w;
  w.existing_node("i-empty", kStart - 3600);
  w.cluster.add_pod(make_pod("train", 8000, 2 * kGi));
  w.cluster.state.synced = false;
  for (Seconds t : {0, 3600}) {
    w.clock.set(kStart + t);
    const LoopResult r = w.loop();
    EXPECT_FALSE(r.planned);
    EXPECT_FALSE(r.acted);
  }
  EXPECT_TRUE(w.cloud.requests.empty());
  EXPECT_TRUE(w.cloud.terminated.empty());
  EXPECT_TRUE(w.cluster.cordoned.empty());

  // Once the view is trusted again, the controller acts.
  w.cluster.state.synced = true;
  w.clock.advance(1);
  EXPECT_EQ(w.loop().launched, 1);
}

TEST(Controller, BudgetRefusalIsAnEventOnThePodAndLaunchesNothing) {
  Policy p = tiny_policy();
  p.enforce_budgets = true;
  p.budgets = Budgets{};
  p.budgets.defaults.usd_per_job = 1.0;
  p.budgets.defaults.max_runtime = 24 * 3600;  // $0.10/h x 24h = $2.40 > $1
  World w(with_policy(p));
  w.cluster.add_pod(make_pod("intern", 1000, 2 * kGi));
  const LoopResult r = w.loop();
  EXPECT_EQ(r.refused, 1);
  EXPECT_EQ(r.launched, 0);
  EXPECT_TRUE(w.cloud.requests.empty());
  const auto events = w.cluster.events_about("intern");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].about.kind, "Pod");
  EXPECT_EQ(events[0].about.ns, "team-a");
  EXPECT_EQ(events[0].type, "Warning");
  EXPECT_EQ(events[0].reason, "BudgetRefused");
  EXPECT_NE(events[0].message.find("usdPerJob"), std::string::npos) << events[0].message;

  // Said once, not every loop.
  w.clock.advance(10);
  w.cluster.touch();
  w.loop();
  EXPECT_EQ(w.cluster.events_about("intern").size(), 1u);
  EXPECT_TRUE(w.cloud.requests.empty());
}

// Issue 12, item 6: a job held by an hourly cap will start later, so its event says BudgetWait
// (not BudgetRefused) and what must free up; a pod no offering fits gets NotTriggerScaleUp.
TEST(Controller, AnHourlyCapGivesBudgetWaitAndNoOfferingGivesNotTriggerScaleUp) {
  Policy p = tiny_policy();
  p.enforce_budgets = true;
  p.budgets = Budgets{};
  p.budgets.defaults.usd_per_hour = 0.15;  // one small node ($0.10/h), not two
  World w(with_policy(p));
  Pod first = make_pod("first", 3000, 2 * kGi);
  first.created = kStart - 20;
  Pod second = make_pod("second", 3000, 2 * kGi);
  second.created = kStart - 10;
  w.cluster.add_pod(first);
  w.cluster.add_pod(second);
  w.cluster.add_pod(make_pod("huge", 64000, 2 * kGi));  // no offering has 64 CPUs
  const LoopResult r = w.loop();
  EXPECT_EQ(r.launched, 1);
  EXPECT_EQ(r.refused, 0);
  const auto waiting = w.cluster.events_about("second");
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(waiting[0].reason, "BudgetWait");
  EXPECT_NE(waiting[0].message.find("to free up"), std::string::npos) << waiting[0].message;
  const auto huge = w.cluster.events_about("huge");
  ASSERT_EQ(huge.size(), 1u);
  EXPECT_EQ(huge[0].reason, "NotTriggerScaleUp");

  // The next loops say nothing new: the words do not change while the job waits.
  w.clock.advance(10);
  w.cluster.touch();
  w.loop();
  EXPECT_EQ(w.cluster.events_about("second").size(), 1u);
}

}  // namespace
}  // namespace fitscale::testing
