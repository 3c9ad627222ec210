// The budget gate's release (issue 12, item 2): the real Controller and planner, pods held by
// fitscale.io/budget only, and what a user sees: which pods lose the gate, which keep it with
// which event, what is launched.
#include "controller/budget_gate.h"

#include <gtest/gtest.h>

#include "controller/controller.h"
#include "fakes.h"

namespace fitscale::testing {
namespace {

constexpr Time kStart = 1'780'000'000;

Pod gated(const std::string& name, std::int64_t cpu_milli, const std::string& ns = "team-a",
          Time created = kStart - 60) {
  Pod p = make_pod(name, cpu_milli, 2 * kGi, 0, ns);
  p.scheduling_gates = {std::string(kBudgetGate)};
  p.scheduler_verdict = SchedulerVerdict::NotYet;  // kube-scheduler says SchedulingGated
  p.created = created;
  return p;
}

Policy capped(double usd_per_hour) {
  Policy p = tiny_policy();
  p.enforce_budgets = true;
  p.budgets = Budgets{};
  p.budgets.defaults.usd_per_hour = usd_per_hour;
  return p;
}

struct World {
  explicit World(Policy policy, bool dry_run = false)
      : catalog(tiny_catalog()), clock(kStart), cloud(clock) {
    ControllerOptions o;
    o.policy = std::move(policy);
    o.dry_run = dry_run;
    controller = std::make_unique<Controller>(cluster, cloud, catalog, clock, nullptr, recorder, o);
  }
  Catalog catalog;
  FakeClock clock;
  FakeCluster cluster;
  FakeCloud cloud;
  NullRecorder recorder;
  std::unique_ptr<Controller> controller;
  LoopResult loop() { return controller->reconcile(); }
  bool still_gated(const std::string& name) { return cluster.pod(name).scheduling_gated(); }
  std::string last_reason(const std::string& name) {
    auto e = cluster.events_about(name);
    return e.empty() ? "" : e.back().reason;
  }
};

// Two jobs that each fit the namespace's $0.15/h alone ($0.10/h each) but not together: the
// older is launched for, the younger keeps its gate with BudgetWait and causes no launch. The
// older keeps its gate while its node boots (released then, the scheduler could bind it to room
// that opens meanwhile on another team's node, its team paying for both) and loses it in the
// first loop that sees the node Ready; the younger still waits.
TEST(BudgetGate, TwoJobsThatFitOnlyAloneAreNotBothUngated) {
  World w(capped(0.15));
  w.cluster.add_pod(gated("first", 3000, "team-a", kStart - 20));
  w.cluster.add_pod(gated("second", 3000, "team-a", kStart - 10));
  const LoopResult r = w.loop();
  EXPECT_EQ(r.launched, 1);
  EXPECT_TRUE(w.still_gated("first"));
  EXPECT_TRUE(w.still_gated("second"));
  EXPECT_EQ(w.last_reason("second"), "BudgetWait");
  EXPECT_NE(w.cluster.events_about("second").back().message.find("to free up"), std::string::npos);
  EXPECT_TRUE(w.cluster.ungated.empty());

  w.clock.advance(30);
  w.cluster.touch();  // still booting: nothing changes, nothing more is launched
  EXPECT_EQ(w.loop().launched, 0);
  EXPECT_TRUE(w.still_gated("first"));

  w.clock.advance(30);
  w.cluster.register_node(w.cloud.instances.at(0), w.catalog);
  EXPECT_EQ(w.loop().launched, 0);
  EXPECT_FALSE(w.still_gated("first"));
  EXPECT_TRUE(w.still_gated("second"));
  ASSERT_EQ(w.cluster.ungated.size(), 1u);
  EXPECT_EQ(w.cluster.ungated[0], "team-a/first fitscale.io/budget");
  EXPECT_EQ(w.cloud.launched_count(), 1);
}

// Free room on a Ready node of another team is where the scheduler may bind a released pod even
// when the plan puts it on its own team's empty node: it is charged the dearest such place. Here
// team-a's own node is free (nothing more to pay) but the pod also fits team-b's half-used node,
// a share team-a's $0.10/h cap (its own node's whole price already) cannot take: it keeps the gate.
TEST(BudgetGate, ARoomOnAnotherTeamsNodeIsChargedThoughThePlanPutsThePodOnItsOwn) {
  World w(capped(0.11));
  const Instance& own =
      w.cloud.add_instance("i-a", "small", "us-east-1a", CapacityType::Spot, kStart - 600, 100'000);
  w.cloud.instances.back().owner_namespace = "team-a";
  w.cluster.register_node(own, w.catalog);
  const Instance& other =
      w.cloud.add_instance("i-b", "small", "us-east-1a", CapacityType::Spot, kStart - 600, 100'000);
  w.cloud.instances.back().owner_namespace = "team-b";
  const Node& b = w.cluster.register_node(other, w.catalog);
  Pod rider = make_pod("rider", 1000, 2 * kGi, 0, "team-b");
  rider.node_name = b.name;
  rider.phase = PodPhase::Running;
  w.cluster.add_pod(rider);
  w.cluster.add_pod(gated("fits-own", 1000));
  EXPECT_EQ(w.loop().launched, 0);
  EXPECT_TRUE(w.still_gated("fits-own"));
  EXPECT_EQ(w.last_reason("fits-own"), "BudgetWait");

  // Once team-b's node has no room for it, its own node is the only place: it goes.
  w.cluster.pod("rider").requests = b.allocatable;
  w.cluster.touch();
  w.clock.advance(10);
  w.loop();
  EXPECT_FALSE(w.still_gated("fits-own"));
}

// A gated pod that fits free room on another team's node but not its own cap never gets there:
// it keeps the gate (the room is not taken), and nothing is launched for it.
TEST(BudgetGate, APodOverItsCapKeepsTheGateAndTakesNoRoomOnAnotherTeamsNode) {
  World w(capped(0.01));  // team-a's share of the small node ($0.10/h x 1/4) is $0.025/h
  const Instance& inst =
      w.cloud.add_instance("i-b", "small", "us-east-1a", CapacityType::Spot, kStart - 600, 100'000);
  w.cloud.instances.back().owner_namespace = "team-b";
  w.cluster.register_node(inst, w.catalog);
  w.cluster.add_pod(gated("over", 1000));
  const LoopResult r = w.loop();
  EXPECT_EQ(r.launched, 0);
  EXPECT_TRUE(w.cloud.requests.empty());
  EXPECT_TRUE(w.still_gated("over"));
  EXPECT_EQ(w.last_reason("over"), "BudgetRefused");
  EXPECT_TRUE(w.cluster.ungated.empty());
}

// Room on a node nobody pays fitscale for (not managed) costs no budget: the gate goes at once.
TEST(BudgetGate, APodThatFitsExistingRoomIsUngatedWithoutALaunch) {
  World w(capped(0.01));
  w.cluster.state.nodes.push_back(make_node("owned", 8000, 32 * kGi));
  w.cluster.add_pod(gated("fits", 1000));
  EXPECT_EQ(w.loop().launched, 0);
  EXPECT_FALSE(w.still_gated("fits"));
}

// Kueue's gate comes first: fitscale neither plans for the pod nor touches either gate.
TEST(BudgetGate, APodWithAnotherGateIsLeftAlone) {
  World w(capped(100));
  Pod p = gated("queued", 1000);
  p.scheduling_gates = {"kueue.x-k8s.io/admission", std::string(kBudgetGate)};
  w.cluster.add_pod(p);
  EXPECT_EQ(w.loop().launched, 0);
  EXPECT_EQ(w.cluster.pod("queued").scheduling_gates.size(), 2u);
  EXPECT_TRUE(w.cluster.ungated.empty());
}

TEST(BudgetGate, DryRunRemovesNoGate) {
  World w(capped(100), /*dry_run=*/true);
  w.cluster.add_pod(gated("train", 1000));
  w.loop();
  EXPECT_TRUE(w.still_gated("train"));
  EXPECT_TRUE(w.cluster.ungated.empty());
}

// A gang is released whole or not at all: with one member unserved, none loses the gate.
TEST(BudgetGate, AGangIsReleasedWholeOrNotAtAll) {
  Snapshot s;
  for (const char* name : {"g-0", "g-1"}) {
    Pod p = gated(name, 1000);
    p.gang = Gang{"g", 2};
    s.pods.push_back(p);
  }
  Plan partly;
  partly.placements["team-a/g-0"] = "n1";
  partly.unschedulable.push_back(
      {"team-a/g-1", "g", UnschedulableKind::BudgetWait, "namespace team-a: waits"});
  EXPECT_TRUE(gates_to_release(s, partly).empty());

  Plan whole;
  whole.placements["team-a/g-0"] = "n1";
  LaunchDecision d;
  d.instance_type = "small";
  d.zone = "us-east-1a";
  d.count = 1;
  d.pods = {"team-a/g-1"};
  whole.launch.push_back(d);
  // A member launched for keeps its gate until its node is Ready, and so does the whole gang.
  EXPECT_TRUE(gates_to_release(s, whole).empty());

  Node n1 = make_node("n1", 8000, 32 * kGi);
  Node n2 = make_node("n2", 8000, 32 * kGi);
  n2.state = NodeState::InFlight;
  s.nodes = {n1, n2};
  Plan booting;
  booting.placements["team-a/g-0"] = "n1";
  booting.placements["team-a/g-1"] = "n2";
  EXPECT_TRUE(gates_to_release(s, booting).empty());

  s.nodes[1].state = NodeState::Ready;
  const auto released = gates_to_release(s, booting);
  ASSERT_EQ(released.size(), 2u);
  EXPECT_EQ(released[0].pod, "g-0");
  EXPECT_EQ(released[0].where, "on node n1");
  EXPECT_EQ(released[1].pod, "g-1");
  EXPECT_EQ(released[1].where, "on node n2");
}

// The whole gang through the planner: two members that fit together are both released.
TEST(BudgetGate, AnAdmittedGangLosesEveryGateInOneLoop) {
  World w(capped(100));
  for (const char* name : {"g-0", "g-1"}) {
    Pod p = gated(name, 3000);
    p.gang = Gang{"g", 2};
    w.cluster.add_pod(p);
  }
  w.loop();
  EXPECT_EQ(w.cloud.launched_count(), 2);
  EXPECT_TRUE(w.still_gated("g-0"));  // its nodes boot
  w.clock.advance(60);
  w.cluster.register_node(w.cloud.instances.at(0), w.catalog);
  w.loop();
  EXPECT_TRUE(w.still_gated("g-0"));  // one of two Ready: the gang waits whole
  EXPECT_TRUE(w.still_gated("g-1"));
  w.cluster.register_node(w.cloud.instances.at(1), w.catalog);
  w.loop();
  EXPECT_FALSE(w.still_gated("g-0"));
  EXPECT_FALSE(w.still_gated("g-1"));
  EXPECT_EQ(w.cloud.launched_count(), 2);
}

}  // namespace
}  // namespace fitscale::testing
