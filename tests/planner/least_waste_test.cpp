#include "planner/least_waste.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fixtures.h"
#include "planner/baseline_policy.h"

namespace fitscale {
namespace {

using testing::kGi;
using testing::make_catalog;
using testing::make_pod;

// A pod of 4 CPUs and 16 GiB: "fit" holds it exactly; "roomy" holds it with half its CPUs and
// three quarters of its memory idle, and is cheaper. fitscale (and Karpenter) pick by price;
// cluster-autoscaler's least-waste expander picks the group that leaves the least idle.
Catalog two_groups() {
  return make_catalog(
      {{"fit", 4000, 16 * kGi, 0, 0.20, 0.60}, {"roomy", 8000, 64 * kGi, 0, 0.15, 0.45}},
      {"us-east-1a"});
}

TEST(LeastWaste, ScoreIsIdleCpuPlusUnusedMemoryOverTheNodesNeeded) {
  const Catalog cat = two_groups();
  Resources req;
  req.cpu_milli = 4000;
  req.memory_bytes = 16 * kGi;
  const Offering& fit = cat.offerings[0];
  const Offering& roomy = cat.offerings[2];
  ASSERT_EQ(fit.instance_type, "fit");
  ASSERT_EQ(roomy.instance_type, "roomy");
  EXPECT_DOUBLE_EQ(planner::waste_score(req, 1, fit), 0.0);
  EXPECT_DOUBLE_EQ(planner::waste_score(req, 1, roomy), 0.5 + 0.75);
  // Three pods: two roomy nodes hold them (two per node by CPU), a quarter of CPU idle.
  EXPECT_DOUBLE_EQ(planner::waste_score(req, 3, roomy), 0.25 + (1.0 - 48.0 / 128.0));
  req.cpu_milli = 9000;  // fits neither
  EXPECT_TRUE(std::isinf(planner::waste_score(req, 1, roomy)));
}

TEST(LeastWaste, ClusterAutoscalerGrowsTheGroupThatWastesLeastNotTheCheapest) {
  const Catalog cat = two_groups();
  Snapshot s;
  s.pods.push_back(make_pod("job", 4000, 16 * kGi));
  const Plan cheapest = plan(s, cat, testing::no_budgets(), 0);
  ASSERT_EQ(cheapest.launch.size(), 1u);
  EXPECT_EQ(cheapest.launch[0].instance_type, "roomy");

  const Policy ca = with_baseline(testing::no_budgets(), PolicyKind::ClusterAutoscaler);
  const Plan least_waste = plan(s, cat, ca, 0);
  ASSERT_EQ(least_waste.launch.size(), 1u);
  EXPECT_EQ(least_waste.launch[0].instance_type, "fit");
  EXPECT_EQ(least_waste.launch[0].capacity_type, CapacityType::Spot);
}

TEST(LeastWaste, BaselinesLaunchForGangPodsOneByOneAndIgnoreBudgets) {
  const Policy ca = with_baseline(Policy{}, PolicyKind::ClusterAutoscaler);
  EXPECT_FALSE(ca.gangs);
  EXPECT_FALSE(ca.enforce_budgets);
  EXPECT_EQ(ca.empty_ttl_s, 600);
  const Policy k = with_baseline(Policy{}, PolicyKind::Karpenter);
  EXPECT_FALSE(k.gangs);
  EXPECT_EQ(k.offering_pick, OfferingPick::Cheapest);
  EXPECT_EQ(k.empty_ttl_s, 0);
  const Policy f = with_baseline(Policy{}, PolicyKind::Fitscale);
  EXPECT_TRUE(f.gangs);
  EXPECT_TRUE(f.enforce_budgets);

  // A gang of three whose third member does not exist yet: fitscale waits for it, a baseline
  // launches for the two that do.
  const Catalog cat = two_groups();
  Snapshot s;
  for (int i = 0; i < 2; ++i) {
    Pod p = make_pod("g-" + std::to_string(i), 4000, 16 * kGi);
    p.gang = Gang{"g", 3};
    s.pods.push_back(p);
  }
  EXPECT_EQ(testing::launched(plan(s, cat, testing::no_budgets(), 0)), 0);
  const Plan kp = plan(s, cat, with_baseline(testing::no_budgets(), PolicyKind::Karpenter), 0);
  std::size_t pods = 0;
  for (const auto& l : kp.launch) pods += l.pods.size();
  EXPECT_EQ(pods, 2u);  // one roomy node holds both
}

}  // namespace
}  // namespace fitscale
