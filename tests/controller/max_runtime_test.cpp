// maxRuntimeAction (issue 12): a job on fitscale's nodes running past its worst case gets one
// MaxRuntimeExceeded event and log record per period (alert), or has its pods deleted
// (terminate); services, pods on nodes fitscale does not run and jobs within their worst case
// are left alone.
#include <gtest/gtest.h>

#include "controller/controller.h"
#include "fakes.h"

namespace fitscale::testing {
namespace {

constexpr Time kStart = 1'780'000'000;

class Actions final : public Recorder {
 public:
  std::vector<ActionRecord> overruns;
  void action(const ActionRecord& r) override {
    if (r.kind == ActionKind::MaxRuntimeExceeded) overruns.push_back(r);
  }
  void planned(const Snapshot&, const Plan&, const LoopStats&) override {}
  void loop_finished(const LoopStats&) override {}
};

struct World {
  explicit World(MaxRuntimeAction action, Seconds max_runtime = 600)
      : catalog(tiny_catalog()), clock(kStart), cloud(clock) {
    ControllerOptions o;
    o.policy = tiny_policy();
    o.policy.enforce_budgets = true;
    o.policy.budgets = Budgets{};
    o.policy.budgets.defaults.max_runtime = max_runtime;
    o.policy.budgets.defaults.max_runtime_action = action;
    controller = std::make_unique<Controller>(cluster, cloud, catalog, clock, nullptr, recorder, o);
    const Instance& inst =
        cloud.add_instance("i-a", "small", "us-east-1a", CapacityType::Spot, kStart - 60, 100'000);
    cluster.register_node(inst, catalog);
  }
  // A pod of Job `job` running on fitscale's node since `started`.
  Pod& running(const std::string& name, Time started, const std::string& job = "train") {
    Pod p = make_pod(name, 500, kGi);
    p.owner = OwnerRef{"Job", job, job + "-uid"};
    p.labels[std::string(label::kJob)] = job;
    p.node_name = "node-i-a";
    p.phase = PodPhase::Running;
    p.created = started - 30;
    p.started = started;
    cluster.add_pod(std::move(p));
    return cluster.pod(name);
  }
  std::vector<RecordedEvent> overrun_events() const {
    std::vector<RecordedEvent> out;
    for (const auto& e : cluster.events) {
      if (e.reason == "MaxRuntimeExceeded") out.push_back(e);
    }
    return out;
  }
  Catalog catalog;
  FakeClock clock;
  FakeCluster cluster;
  FakeCloud cloud;
  Actions recorder;
  std::unique_ptr<Controller> controller;
};

TEST(MaxRuntime, AlertSaysItOncePerPeriodAndLeavesThePodRunning) {
  World w(MaxRuntimeAction::Alert);
  w.running("train-0", kStart);
  w.controller->reconcile();
  EXPECT_TRUE(w.overrun_events().empty());

  // No change in the cluster: the loop wakes up for the worst case's end by itself, and says
  // so without planning again (nothing the plan reads changed: controller/loop_work.h).
  w.clock.set(kStart + 600);
  EXPECT_FALSE(w.controller->reconcile().planned);
  ASSERT_EQ(w.overrun_events().size(), 1u);
  const RecordedEvent e = w.overrun_events()[0];
  EXPECT_EQ(e.about.name, "train-0");
  EXPECT_EQ(e.type, "Warning");
  EXPECT_EQ(e.message,
            "job team-a/train has run 10m, past its worst case of 10m (the namespace's "
            "maxRuntime); its nodes stay committed for another 10m (maxRuntimeAction: alert)");
  ASSERT_EQ(w.recorder.overruns.size(), 1u);
  EXPECT_EQ(w.recorder.overruns[0].subject, "team-a/train");
  EXPECT_EQ(w.recorder.overruns[0].fields.at("action"), "alert");
  EXPECT_EQ(w.recorder.overruns[0].fields.at("period"), "1");
  EXPECT_TRUE(w.cluster.deleted_pods.empty());

  // Not again at every loop of the same period...
  for (int i = 0; i < 5; ++i) {
    w.clock.advance(60);
    w.cluster.touch();
    w.controller->reconcile();
  }
  EXPECT_EQ(w.overrun_events().size(), 1u);
  // ...but again when it runs past another whole period.
  w.clock.set(kStart + 1200);
  w.controller->reconcile();
  EXPECT_EQ(w.overrun_events().size(), 2u);
  ASSERT_EQ(w.recorder.overruns.size(), 2u);
  EXPECT_EQ(w.recorder.overruns[1].fields.at("period"), "2");
  EXPECT_TRUE(w.cluster.deleted_pods.empty());
}

TEST(MaxRuntime, TerminateDeletesEveryPodOfTheJobWithAnEvent) {
  World w(MaxRuntimeAction::Terminate);
  w.running("train-0", kStart);
  w.running("train-1", kStart + 5);
  w.running("other-0", kStart + 300, "other");  // within its worst case: stays
  w.controller->reconcile();
  w.clock.set(kStart + 605);
  w.controller->reconcile();
  EXPECT_EQ(w.cluster.deleted_pods, (std::vector<std::string>{"team-a/train-0", "team-a/train-1"}));
  ASSERT_EQ(w.overrun_events().size(), 2u);
  EXPECT_NE(
      w.overrun_events()[0].message.find("fitscale deletes its pods (maxRuntimeAction: terminate)"),
      std::string::npos);
  ASSERT_EQ(w.recorder.overruns.size(), 1u);
  EXPECT_EQ(w.recorder.overruns[0].fields.at("pods"), "2");

  w.clock.set(kStart + 900);
  w.controller->reconcile();
  EXPECT_EQ(w.cluster.deleted_pods.size(), 3u);
  EXPECT_EQ(w.cluster.deleted_pods.back(), "team-a/other-0");
}

TEST(MaxRuntime, DeclaredRuntimeWinsOverTheNamespaceDefault) {
  World w(MaxRuntimeAction::Terminate, 3600);
  Pod& p = w.running("short-0", kStart, "short");
  p.annotations["fitscale.io/max-runtime"] = "2m";
  w.controller->reconcile();
  w.clock.set(kStart + 119);
  w.controller->reconcile();
  EXPECT_TRUE(w.cluster.deleted_pods.empty());
  w.clock.set(kStart + 120);
  w.controller->reconcile();
  EXPECT_EQ(w.cluster.deleted_pods, std::vector<std::string>{"team-a/short-0"});
  ASSERT_EQ(w.overrun_events().size(), 1u);
  EXPECT_NE(w.overrun_events()[0].message.find("(fitscale.io/max-runtime)"), std::string::npos);
}

TEST(MaxRuntime, ServicesAndPodsOnOtherNodesAreLeftAlone) {
  World w(MaxRuntimeAction::Terminate);
  Pod& svc = w.running("web-0", kStart, "web");
  svc.owner = OwnerRef{"ReplicaSet", "web-abc", "rs-uid"};
  svc.labels.erase(std::string(label::kJob));
  w.cluster.state.nodes.push_back(make_node("byhand", 4000, 16 * kGi));
  Pod& elsewhere = w.running("train-0", kStart);
  elsewhere.node_name = "byhand";
  w.controller->reconcile();
  w.clock.set(kStart + 3600);
  w.cluster.touch();
  w.controller->reconcile();
  EXPECT_TRUE(w.cluster.deleted_pods.empty());
  EXPECT_TRUE(w.overrun_events().empty());
}

TEST(MaxRuntime, DryRunOnlyRecordsIt) {
  World w(MaxRuntimeAction::Terminate);
  ControllerOptions o;
  o.policy = tiny_policy();
  o.policy.enforce_budgets = true;
  o.policy.budgets = Budgets{};
  o.policy.budgets.defaults.max_runtime = 600;
  o.policy.budgets.defaults.max_runtime_action = MaxRuntimeAction::Terminate;
  o.dry_run = true;
  Controller dry(w.cluster, w.cloud, w.catalog, w.clock, nullptr, w.recorder, o);
  w.running("train-0", kStart);
  w.clock.set(kStart + 700);
  dry.reconcile();
  EXPECT_TRUE(w.cluster.deleted_pods.empty());
  EXPECT_TRUE(w.overrun_events().empty());
  ASSERT_EQ(w.recorder.overruns.size(), 1u);
  EXPECT_EQ(w.recorder.overruns[0].fields.at("dry_run"), "true");
}

}  // namespace
}  // namespace fitscale::testing
