// A node still carrying its pool's startup taint is coming capacity for its pods (docs/pools.md).
#include "controller/startup_taints.h"

#include <gtest/gtest.h>

#include "../planner/fixtures.h"

namespace fitscale::testing {
namespace {

const Taint kAgent{"example.com/agent-not-ready", "", TaintEffect::NoSchedule};

struct StartupTaintedNode {
  Catalog catalog = make_catalog({{"m5.large", 2000, 8 * kGi, 0, 0.04, 0.096}});
  Snapshot snapshot;
  StartupTaintedNode() {
    Pool p;
    p.name = "agent";
    p.startup_taints = {kAgent};
    catalog.pools = {p};
    Node n = make_node("ip-10-0-0-1", 2000, 8 * kGi);
    n.managed = true;
    n.created = 1000;
    n.labels[std::string(label::kPool)] = "agent";
    n.taints = {kAgent, {"team", "ml", TaintEffect::NoSchedule}};
    snapshot.nodes.push_back(n);
    Pod pod = make_pod("train-0", 1000, kGi);
    pod.tolerations = {{"team", false, "ml", TaintEffect::NoSchedule}};
    snapshot.pods.push_back(pod);
  }
};

TEST(StartupTaints, AFreshNodeWithItsStartupTaintTakesItsPodsAndNothingIsLaunched) {
  StartupTaintedNode s;
  Snapshot before = s.snapshot;
  // As observed, the pod does not tolerate the agent's taint: a second node would be launched.
  EXPECT_EQ(launched(plan(before, s.catalog, no_budgets(), 1060)), 1);
  set_aside_startup_taints(s.snapshot, s.catalog.pools, 1060);
  ASSERT_EQ(s.snapshot.nodes[0].taints.size(), 1u);  // the pool's other taint stays
  EXPECT_EQ(s.snapshot.nodes[0].taints[0].key, "team");
  const Plan p = plan(s.snapshot, s.catalog, no_budgets(), 1060);
  EXPECT_EQ(launched(p), 0);
  EXPECT_EQ(p.placements.at("team-a/train-0"), "ip-10-0-0-1");
  EXPECT_TRUE(p.remove.empty());
}

TEST(StartupTaints, AStartupTaintStillThereAfterTheGraceCountsAsItIs) {
  StartupTaintedNode s;
  set_aside_startup_taints(s.snapshot, s.catalog.pools, 1000 + kStartupTaintGrace);
  EXPECT_EQ(s.snapshot.nodes[0].taints.size(), 2u);
}

TEST(StartupTaints, NodesOfOtherPoolsOrNotLaunchedByFitscaleKeepTheirTaints) {
  StartupTaintedNode s;
  s.snapshot.nodes[0].managed = false;
  set_aside_startup_taints(s.snapshot, s.catalog.pools, 1060);
  EXPECT_EQ(s.snapshot.nodes[0].taints.size(), 2u);
  StartupTaintedNode t;
  t.snapshot.nodes[0].labels[std::string(label::kPool)] = "other";
  set_aside_startup_taints(t.snapshot, t.catalog.pools, 1060);
  EXPECT_EQ(t.snapshot.nodes[0].taints.size(), 2u);
}

}  // namespace
}  // namespace fitscale::testing
