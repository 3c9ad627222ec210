// Backlogs cost what changed (issue 18 item 3): a loop whose pods, capacity, budgets and
// time-based limits did not change plans nothing, even when a job past its worst case wakes it;
// every input of the plan that can change (controller/loop_work.h) makes the next loop plan.
#include <gtest/gtest.h>

#include "controller/controller.h"
#include "controller/loop_work.h"
#include "fakes.h"

namespace fitscale::testing {
namespace {

constexpr Time kStart = 1'780'000'000;  // 2026-05-28T20:26:40Z: hours before a UTC day begins

class Overruns final : public Recorder {
 public:
  int overruns = 0;
  void action(const ActionRecord& r) override {
    if (r.kind == ActionKind::MaxRuntimeExceeded) ++overruns;
  }
  void planned(const Snapshot&, const Plan&, const LoopStats&) override {}
  void loop_finished(const LoopStats&) override {}
};

// One node (the cluster's cap) nearly full with a job that overruns its worst case every 10
// minutes, and a pod that waits for the cap.
struct Held {
  Held() : catalog(tiny_catalog()), clock(kStart), cloud(clock) {
    ControllerOptions o;
    o.policy = tiny_policy();
    o.policy.enforce_budgets = true;
    o.policy.budgets = Budgets{};
    o.policy.budgets.cluster.nodes = 1;
    o.policy.budgets.defaults.max_runtime = 600;
    o.policy.budgets.defaults.max_runtime_action = MaxRuntimeAction::Alert;
    o.waiting_recheck_s = 3600;
    o.offering_backoff_s = 300;
    budgets = o.policy.budgets;
    controller = std::make_unique<Controller>(cluster, cloud, catalog, clock, nullptr, recorder, o);
    const Instance& inst =
        cloud.add_instance("i-a", "small", "us-east-1a", CapacityType::Spot, kStart - 600, 100'000);
    cluster.register_node(inst, catalog);
    Pod train = make_pod("train-0", 3500, kGi);
    train.owner = OwnerRef{"Job", "train", "train-uid"};
    train.labels[std::string(label::kJob)] = "train";
    train.node_name = "node-i-a";
    train.phase = PodPhase::Running;
    train.created = kStart - 330;
    train.started = kStart - 300;  // its worst case ends at kStart + 300, + 900, ...
    cluster.add_pod(std::move(train));
    cluster.add_pod(make_pod("wait-0", 2000, kGi));
  }
  bool loop_after(Seconds s) {
    clock.advance(s);
    return controller->reconcile().planned;
  }
  Catalog catalog;
  FakeClock clock;
  FakeCluster cluster;
  FakeCloud cloud;
  Overruns recorder;
  Budgets budgets;
  std::unique_ptr<Controller> controller;
};

TEST(HeldBacklog, UnchangedLoopsDoNotPlanEvenWhenAnOverrunWakesThem) {
  Held w;
  EXPECT_TRUE(w.controller->reconcile().planned);
  EXPECT_EQ(w.cloud.launched_count(), 0) << "the cap holds the pod";
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(w.loop_after(10)) << "loop " << i;
  // The job passed its worst case at kStart + 300 and again at + 900: told twice, no plan.
  EXPECT_EQ(w.recorder.overruns, 2);
}

TEST(HeldBacklog, ANewPodPlans) {
  Held w;
  w.controller->reconcile();
  EXPECT_FALSE(w.loop_after(10));
  w.cluster.add_pod(make_pod("wait-1", 500, kGi));
  EXPECT_TRUE(w.loop_after(10));
  EXPECT_FALSE(w.loop_after(10));
}

TEST(HeldBacklog, ANodeGoneOrARunningPodEndingPlans) {
  Held w;
  w.controller->reconcile();
  EXPECT_FALSE(w.loop_after(10));
  w.cluster.delete_pod("team-a", "train-0");  // room on the node
  EXPECT_TRUE(w.loop_after(10));
  w.cluster.add_pod(make_pod("wait-1", 3900, kGi));
  w.loop_after(10);
  EXPECT_FALSE(w.loop_after(10));
  w.cluster.delete_node("node-i-a");
  EXPECT_TRUE(w.loop_after(10));
}

TEST(HeldBacklog, ABudgetChangePlans) {
  Held w;
  w.controller->reconcile();
  EXPECT_FALSE(w.loop_after(10));
  Budgets raised = w.budgets;
  raised.cluster.nodes = 2;
  w.controller->set_budgets(raised);
  EXPECT_TRUE(w.loop_after(10));
  EXPECT_EQ(w.cloud.launched_count(), 1) << "the raised cap lets the waiting pod have a node";
}

TEST(HeldBacklog, ABackOffExpiringPlans) {
  Held w;
  for (const char* key : {"small/us-east-1a/spot", "small/us-east-1a/on-demand",
                          "big/us-east-1a/spot", "big/us-east-1a/on-demand"}) {
    w.cloud.failing[key] = LaunchFailure{"", 0, "InsufficientInstanceCapacity", "none", true};
  }
  Budgets raised = w.budgets;
  raised.cluster.nodes = 2;
  w.controller->set_budgets(raised);
  w.controller->reconcile();  // every offering fails: all backed off for 300 s
  while (!w.cloud.failing.empty() && w.cloud.requests.size() < 4) w.loop_after(10);
  ASSERT_EQ(w.cloud.launched_count(), 0);
  w.cloud.failing.clear();
  int planned = 0;
  for (int i = 0; i < 35 && w.cloud.launched_count() == 0; ++i) planned += w.loop_after(10);
  EXPECT_EQ(w.cloud.launched_count(), 1) << "the back-off's end is a timer that plans";
  EXPECT_LE(planned, 2) << "the loops before it did not plan";
}

TEST(HeldBacklog, TimeBasedLimitsPlan) {
  {
    // waiting_recheck_s passed while a pod waits on a budget: dollar caps move with time.
    Held w;
    w.controller->reconcile();
    int planned = 0;
    for (int i = 0; i < 360; ++i) planned += w.loop_after(10);
    EXPECT_EQ(planned, 1) << "one recheck in an hour";
  }
  {
    // A UTC day begins while a pod waits: daily and monthly spend windows reset.
    Held w;
    w.controller->reconcile();
    const Time midnight = utc_day_start(kStart) + 86400;
    w.clock.set(midnight - 5);
    w.controller->reconcile();  // an hourly recheck, maybe
    EXPECT_FALSE(w.loop_after(1));
    EXPECT_TRUE(w.loop_after(10)) << "first loop of the new day";
    EXPECT_FALSE(w.loop_after(10));
  }
}

TEST(HeldBacklog, AnEmptyNodeYoungerThanDelayAfterLaunchIsRemovedWhenTheDelayEndsWithoutAChange) {
  Catalog catalog = tiny_catalog();
  FakeClock clock(kStart);
  FakeCluster cluster;
  FakeCloud cloud(clock);
  Overruns recorder;
  ControllerOptions o;
  o.policy = tiny_policy();  // empty TTL 60 s
  o.policy.delay_after_launch_s = 300;
  Controller c(cluster, cloud, catalog, clock, nullptr, recorder, o);
  const Instance& inst =
      cloud.add_instance("i-a", "small", "us-east-1a", CapacityType::Spot, kStart, 100'000);
  cluster.register_node(inst, catalog).launched_at = kStart;
  c.reconcile();
  // Empty past its TTL at +60 but launched less than 300 s ago: the timer must wake the loop
  // again when the delay ends, with nothing else changing.
  for (int i = 0; i < 40 && cluster.cordoned.empty() && cluster.deleted.empty(); ++i) {
    clock.advance(10);
    c.reconcile();
  }
  EXPECT_TRUE(!cluster.cordoned.empty() || !cluster.deleted.empty())
      << "an empty node past both its TTL and the delay after launch goes";
  EXPECT_GE(clock.now(), kStart + 300);
}

TEST(LoopWork, EveryWakeThatChangesAPlanInputPlans) {
  EXPECT_EQ(loop_work({}), LoopWork::Nothing);
  LoopWake overrun;
  overrun.overrun_due = true;
  EXPECT_EQ(loop_work(overrun), LoopWork::OverrunsOnly);
  for (bool LoopWake::*field : {&LoopWake::inputs_changed, &LoopWake::plan_timer_due,
                                &LoopWake::budget_recheck_due, &LoopWake::budget_window_began}) {
    LoopWake w;
    w.*field = true;
    EXPECT_EQ(loop_work(w), LoopWork::Plan);
    w.overrun_due = true;
    EXPECT_EQ(loop_work(w), LoopWork::Plan);
  }
}

}  // namespace
}  // namespace fitscale::testing
