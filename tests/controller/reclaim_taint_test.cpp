// The reclaim taint in the controller (issue 18 item 1), as a user of `fitscale run` sees it: a
// node whose launch job ended and whose free room is dear for what is pending gets
// fitscale.io/reclaim=true:NoSchedule (the pods running there stay), the pending pods get nodes
// of their own, and the taint goes again once the node is the cheapest place for pending work.
// The taint write is the controller's own: the next loop does not plan again because of it.
#include <gtest/gtest.h>

#include <algorithm>

#include "controller/controller.h"
#include "fakes.h"
#include "planner/reclaim.h"

namespace fitscale::testing {
namespace {

constexpr Time kStart = 1'780'000'000;

class Actions final : public Recorder {
 public:
  std::vector<ActionRecord> reclaims;
  void action(const ActionRecord& r) override {
    if (r.kind == ActionKind::Reclaim) reclaims.push_back(r);
  }
  void planned(const Snapshot&, const Plan&, const LoopStats&) override {}
  void loop_finished(const LoopStats&) override {}
};

bool reclaim_tainted(const Node& n) {
  return std::any_of(n.taints.begin(), n.taints.end(), [](const Taint& t) {
    return t.key == planner::kReclaimTaint && t.value == "true" &&
           t.effect == TaintEffect::NoSchedule;
  });
}

Pod gpu_pod(const std::string& name, std::int64_t gpus, const std::string& job) {
  Pod p = make_pod(name, 4000 * gpus, 16 * kGi * gpus, gpus);
  p.owner = OwnerRef{"Job", job, job + "-uid"};
  p.labels[std::string(label::kJob)] = job;
  return p;
}

// big: 8 GPUs at $8/h spot; small: 1 GPU at $0.25/h. A big node launched for team-a's 8-GPU
// job train8, which runs there, and a 1-GPU pod of another job riding in its room.
struct World {
  World() : catalog(gpu_catalog()), clock(kStart), cloud(clock) {
    ControllerOptions o;
    o.policy = no_budgets();
    o.policy.zones = {"us-east-1a"};
    EXPECT_GT(o.policy.reclaim_factor, 0) << "the default reclaims";
    controller = std::make_unique<Controller>(cluster, cloud, catalog, clock, nullptr, recorder, o);
    Instance& inst = cloud.add_instance("i-big", "big", "us-east-1a", CapacityType::Spot,
                                        kStart - 600, 8'000'000);
    inst.job = "train8";
    cluster.register_node(inst, catalog);
    Pod train = gpu_pod("train8-0", 7, "train8");
    train.node_name = "node-i-big";
    train.phase = PodPhase::Running;
    cluster.add_pod(train);
    Pod rider = gpu_pod("rider-0", 1, "rider");
    rider.node_name = "node-i-big";
    rider.phase = PodPhase::Running;
    cluster.add_pod(rider);
  }
  static Catalog gpu_catalog() {
    return make_catalog(
        {{"big", 64000, 256 * kGi, 8, 8.0, 24.0}, {"small", 8000, 32 * kGi, 1, 0.25, 1.0}},
        {"us-east-1a"});
  }
  LoopResult loop_after(Seconds s) {
    clock.advance(s);
    return controller->reconcile();
  }
  const Node& big() const { return cluster.state.nodes.front(); }
  void launch_job_ends() {
    cluster.pod("train8-0").phase = PodPhase::Succeeded;
    cluster.touch();
  }

  Catalog catalog;
  FakeClock clock;
  FakeCluster cluster;
  FakeCloud cloud;
  Actions recorder;
  std::unique_ptr<Controller> controller;
};

TEST(ReclaimTaint, ANodeIsTaintedOnceItsLaunchJobEndedAndItsRoomIsDear) {
  World w;
  EXPECT_TRUE(w.loop_after(0).planned);
  EXPECT_FALSE(reclaim_tainted(w.big())) << "its launch job still runs there";

  // train8 ends; the rider keeps the 8-GPU node alive with 7 GPUs ($7/h) free.
  w.launch_job_ends();
  EXPECT_TRUE(w.loop_after(10).planned);
  EXPECT_TRUE(reclaim_tainted(w.big()));
  ASSERT_EQ(w.recorder.reclaims.size(), 1u);
  EXPECT_EQ(w.recorder.reclaims[0].subject, "node-i-big");
  EXPECT_EQ(w.recorder.reclaims[0].fields.at("taint"), "added");
  EXPECT_TRUE(w.cluster.evicted.empty()) << "nothing is ever evicted";
  EXPECT_TRUE(w.cluster.cordoned.empty());
  EXPECT_EQ(w.cluster.pod("rider-0").node_name, "node-i-big") << "what runs there stays";

  // The write was the controller's own, already in the plan: no plan for its echo.
  EXPECT_FALSE(w.loop_after(10).planned);
  EXPECT_FALSE(w.loop_after(10).planned);
  EXPECT_EQ(w.recorder.reclaims.size(), 1u) << "tainted once";

  // A 1-GPU pod costs $0.25/h on a node of its own: it gets one, not the dear room.
  w.cluster.add_pod(gpu_pod("one-0", 1, "one"));
  const LoopResult r = w.loop_after(10);
  EXPECT_TRUE(r.planned);
  ASSERT_EQ(r.launched, 1);
  EXPECT_EQ(w.cloud.requests.back().instance_type, "small");
  EXPECT_TRUE(reclaim_tainted(w.big()));
}

TEST(ReclaimTaint, TheTaintGoesWhenTheNodeIsTheCheapestPlaceForPendingWork) {
  World w;
  w.loop_after(0);
  w.launch_job_ends();
  w.loop_after(10);
  ASSERT_TRUE(reclaim_tainted(w.big()));

  // A 4-GPU pod fits no small node: the big node's room is its cheapest place.
  w.cluster.add_pod(gpu_pod("four-0", 4, "four"));
  const LoopResult r = w.loop_after(10);
  EXPECT_TRUE(r.planned);
  EXPECT_FALSE(reclaim_tainted(w.big()));
  ASSERT_EQ(w.recorder.reclaims.size(), 2u);
  EXPECT_EQ(w.recorder.reclaims[1].fields.at("taint"), "removed");
  EXPECT_EQ(r.launched, 0) << "it is placed in the room, not launched for";
  EXPECT_TRUE(w.cluster.evicted.empty());
  // And the removal is an own write too.
  EXPECT_FALSE(w.loop_after(10).planned);
}

TEST(ReclaimTaint, AChangeThatCameWithTheEchoIsPlanned) {
  World w;
  w.loop_after(0);
  w.launch_job_ends();
  w.loop_after(10);
  ASSERT_TRUE(reclaim_tainted(w.big()));
  // Someone else changes the node (a label) as the taint's echo arrives: not an echo.
  w.cluster.state.nodes.front().labels["team"] = "a";
  w.cluster.touch();
  EXPECT_TRUE(w.loop_after(10).planned);
}

TEST(ReclaimTaint, InDryRunNothingIsWritten) {
  World w;
  ControllerOptions o;
  o.policy = no_budgets();
  o.policy.zones = {"us-east-1a"};
  o.dry_run = true;
  w.controller =
      std::make_unique<Controller>(w.cluster, w.cloud, w.catalog, w.clock, nullptr, w.recorder, o);
  w.launch_job_ends();
  w.loop_after(10);
  EXPECT_FALSE(reclaim_tainted(w.big()));
  ASSERT_EQ(w.recorder.reclaims.size(), 1u);
  EXPECT_EQ(w.recorder.reclaims[0].fields.at("dry_run"), "true");
}

}  // namespace
}  // namespace fitscale::testing
