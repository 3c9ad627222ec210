// A coscheduling group whose size nobody says yet (issue 16): nothing is launched for it, its
// pods get a reason that names the missing PodGroup, and the rest of the cluster is planned.
#include <gtest/gtest.h>

#include "fixtures.h"
#include "model/pod_group.h"
#include "planner/plan.h"

namespace fitscale {
namespace {

using testing::kGi;
using testing::make_catalog;
using testing::make_pod;

Catalog gpu_catalog() {
  return make_catalog({{"p3.2xlarge", 8000, 61 * kGi, 1, 0.92, 3.06, "V100"}}, {"us-east-1a"},
                      {1.0});
}

TEST(PodGroupPlan, AGroupWithoutItsPodGroupWaitsAndTheOtherPodsArePlanned) {
  Snapshot s;
  for (int i = 0; i < 2; ++i) {
    Pod p = make_pod("w-" + std::to_string(i), 4000, 16 * kGi, 1);
    p.gang = Gang{"allreduce", 1, GangSizer::CoschedulingPodGroup, true};
    s.pods.push_back(p);
  }
  s.pods.push_back(make_pod("lone", 4000, 16 * kGi, 1));
  const Plan plan_ = plan(s, gpu_catalog(), testing::no_budgets(), 0);
  ASSERT_EQ(plan_.launch.size(), 1u);
  EXPECT_EQ(plan_.launch[0].pods, std::vector<std::string>{"team-a/lone"});
  EXPECT_FALSE(plan_.launch[0].all_or_nothing);
  const auto* u = testing::reason_for(plan_, "team-a/w-0");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->kind, UnschedulableKind::GangIncomplete);
  EXPECT_EQ(u->reason, pod_group_missing_reason("team-a", "allreduce"));
  EXPECT_NE(u->reason.find("no PodGroup team-a/allreduce"), std::string::npos) << u->reason;
}

TEST(PodGroupPlan, OnceThePodGroupIsSeenItsMembersLaunchTogether) {
  std::vector<Pod> pods;
  for (int i = 0; i < 3; ++i) {
    Pod p = make_pod("w-" + std::to_string(i), 4000, 16 * kGi, 1);
    p.gang = Gang{"allreduce", 1, GangSizer::CoschedulingPodGroup, true};
    pods.push_back(p);
  }
  apply_pod_groups(pods,
                   {PodGroupView{"team-a", "allreduce", 3}, PodGroupView{"other", "allreduce", 9}});
  Snapshot s;
  s.pods = pods;
  const Plan plan_ = plan(s, gpu_catalog(), testing::no_budgets(), 0);
  ASSERT_EQ(plan_.launch.size(), 1u);
  EXPECT_EQ(plan_.launch[0].count, 3);
  EXPECT_EQ(plan_.launch[0].pods.size(), 3u);
  EXPECT_TRUE(plan_.launch[0].all_or_nothing) << "a gang's nodes: all or none at the cloud";
}

TEST(PodGroupPlan, APodGroupLargerThanItsPodsHoldsThemBack) {
  std::vector<Pod> pods;
  Pod p = make_pod("w-0", 4000, 16 * kGi, 1);
  p.gang = Gang{"allreduce", 1, GangSizer::CoschedulingPodGroup, true};
  pods.push_back(p);
  apply_pod_groups(pods, {PodGroupView{"team-a", "allreduce", 4}});
  Snapshot s;
  s.pods = pods;
  const Plan plan_ = plan(s, gpu_catalog(), testing::no_budgets(), 0);
  EXPECT_TRUE(plan_.launch.empty());
  const auto* u = testing::reason_for(plan_, "team-a/w-0");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->reason, "gang allreduce has 1 of 4 pods; it starts only when all exist");
}

}  // namespace
}  // namespace fitscale
