// What the controller tells the ledger: each launched node's worst-case end (for period
// budgets), and, after a restart, the end of nodes whose instance vanished while it was down.
#include <gtest/gtest.h>

#include "controller/controller.h"
#include "cost/memory_ledger.h"
#include "fakes.h"

namespace fitscale::testing {
namespace {

constexpr Time kStart = 1'780'000'000;
constexpr Seconds kHour = 3600;

Policy runtime_policy() {
  Policy p = tiny_policy();
  p.enforce_budgets = true;
  p.budgets = Budgets{};
  p.budgets.defaults.max_runtime = 24 * kHour;
  p.budgets.namespaces["research-a"].max_runtime = 72 * kHour;
  return p;
}

struct LedgerWorld {
  LedgerWorld() : clock(kStart), cloud(clock), catalog(tiny_catalog()) {}
  void start(bool spend_only_for_admission = false, std::optional<double> usd_per_day = {}) {
    ControllerOptions o;
    o.policy = runtime_policy();
    o.policy.budgets.defaults.usd_per_day = usd_per_day;
    o.spend_only_for_admission = spend_only_for_admission;
    controller = std::make_unique<Controller>(cluster, cloud, catalog, clock, &ledger, recorder, o);
  }
  FakeClock clock;
  FakeCluster cluster;
  FakeCloud cloud;
  Catalog catalog;
  MemoryLedger ledger;
  NullRecorder recorder;
  std::unique_ptr<Controller> controller;

  // Launch one node for `pod` and return the worst-case end the ledger was given.
  Time worst_case_end_for(Pod pod) {
    cluster.add_pod(std::move(pod));
    const std::size_t before = cloud.instances.size();
    controller->reconcile();
    EXPECT_EQ(cloud.instances.size(), before + 1);
    if (cloud.instances.size() != before + 1) return -1;
    const std::string id = cloud.instances.back().id;
    return ledger.meter().nodes().at(id).charge.worst_case_end;
  }
};

TEST(ControllerLedger, LaunchedNodeEndsAtTheDeclaredMaxRuntime) {
  LedgerWorld w;
  w.start();
  Pod p = make_pod("short", 4000, 2 * kGi);
  p.annotations["fitscale.io/max-runtime"] = "2h";
  EXPECT_EQ(w.worst_case_end_for(p), kStart + 2 * kHour);
}

TEST(ControllerLedger, ActiveDeadlineWinsOverTheAnnotation) {
  LedgerWorld w;
  w.start();
  Pod p = make_pod("deadline", 4000, 2 * kGi);
  p.active_deadline_s = 30 * 60;
  p.annotations["fitscale.io/max-runtime"] = "5h";
  EXPECT_EQ(w.worst_case_end_for(p), kStart + 30 * 60);
}

TEST(ControllerLedger, UndeclaredRuntimeUsesTheNamespaceBudget) {
  LedgerWorld w;
  w.start();
  EXPECT_EQ(w.worst_case_end_for(make_pod("long", 4000, 2 * kGi, 0, "research-a")),
            kStart + 72 * kHour);
  w.clock.advance(10);
  EXPECT_EQ(w.worst_case_end_for(make_pod("other", 4000, 2 * kGi, 0, "team-b")),
            kStart + 10 + 24 * kHour);
}

// The simulator asks the ledger for spend only while some pod is pending: a daily cap must see
// what the first job committed either way, so the second job waits instead of launching.
TEST(ControllerLedger, DailyCapSeesCommittedSpendWhenSpendIsAskedOnlyForAdmission) {
  for (bool only_for_admission : {false, true}) {
    LedgerWorld w;
    w.start(only_for_admission, 0.15);  // one $0.10/h node for 1 h fits, two do not
    auto one_hour_job = [](const std::string& name) {
      Pod p = make_pod(name, 4000, 2 * kGi);
      p.annotations["fitscale.io/max-runtime"] = "1h";
      return p;
    };
    w.cluster.add_pod(one_hour_job("first"));
    w.controller->reconcile();
    ASSERT_EQ(w.cloud.instances.size(), 1u) << only_for_admission;
    w.clock.advance(10);
    w.cluster.add_pod(one_hour_job("second"));
    w.controller->reconcile();
    EXPECT_EQ(w.cloud.instances.size(), 1u) << only_for_admission;
  }
}

TEST(ControllerLedger, NodeThatVanishedWhileDownIsStoppedOnTheFirstObserve) {
  LedgerWorld w;
  // What a durable ledger remembers from before the restart: two nodes, still open.
  NodeCharge gone;
  gone.node_id = "i-gone";
  gone.instance_type = "small";
  gone.micros_per_hour = 1'000'000;
  gone.owner_namespace = "team-a";
  w.ledger.node_started(gone, kStart - 2 * kHour);
  NodeCharge live = gone;
  live.node_id = "i-live";
  w.ledger.node_started(live, kStart - 2 * kHour);
  // Only one of them is still in the cloud.
  const Instance& inst = w.cloud.add_instance("i-live", "small", "us-east-1a", CapacityType::Spot,
                                              kStart - 2 * kHour, 1'000'000);
  Node& node = w.cluster.register_node(inst, w.catalog);
  Pod job = make_pod("train", 1000, 2 * kGi);
  job.node_name = node.name;
  job.phase = PodPhase::Running;
  w.cluster.add_pod(job);

  w.start();
  w.controller->reconcile();
  EXPECT_EQ(w.ledger.open_nodes(), std::vector<std::string>{"i-live"});
  Micros gone_cost = 0;
  Time gone_end = 0;
  for (const auto& s : w.ledger.closed_segments()) {
    if (s.node_id != "i-gone") continue;
    gone_cost += s.node_micros;
    gone_end = std::max(gone_end, s.end);
  }
  EXPECT_EQ(gone_end, kStart);
  EXPECT_EQ(gone_cost, 2'000'000);  // two hours at $1/h, and no more

  // Later loops leave it closed and keep the live node open.
  w.clock.advance(kHour);
  w.cluster.touch();
  w.controller->reconcile();
  EXPECT_EQ(w.ledger.open_nodes(), std::vector<std::string>{"i-live"});
}

}  // namespace
}  // namespace fitscale::testing

namespace fitscale::testing {
namespace {

TEST(ControllerLedger, AdoptedInstanceEndsAtItsNamespaceDefaultRuntimeFromLaunch) {
  // After a restart with an in-memory ledger, a running instance fitscale did not launch in this
  // process is adopted: its worst case is its namespace's maxRuntime (72 h for research-a) from
  // its launch, not "one more hour", or day and month caps would under-count it.
  LedgerWorld w;
  Instance& inst = w.cloud.add_instance("i-adopted", "small", "us-east-1a", CapacityType::Spot,
                                        kStart - 2 * kHour, 1'000'000);
  inst.owner_namespace = "research-a";
  w.cluster.register_node(inst, w.catalog);
  w.start();
  w.controller->reconcile();
  EXPECT_EQ(w.ledger.meter().nodes().at("i-adopted").charge.worst_case_end,
            kStart - 2 * kHour + 72 * kHour);
}

}  // namespace
}  // namespace fitscale::testing
