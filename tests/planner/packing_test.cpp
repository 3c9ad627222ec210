// New-node packing choices a person can check by hand.
#include "planner/packing.h"

#include <gtest/gtest.h>

#include <map>

#include "fixtures.h"

namespace fitscale {
namespace {

using testing::kGi;
using testing::launched;
using testing::make_catalog;
using testing::make_pod;

TEST(Packing, TenPodsOf350mOnA1000mNodeTypeNeedFiveNodes) {
  // Two 350m pods fit in 1000m, three do not: 10 pods -> 5 nodes.
  const Catalog cat = make_catalog({{"small", 1000, 8 * kGi, 0, 0.10, 0.30}});
  Snapshot s;
  for (int i = 0; i < 10; ++i)
    s.pods.push_back(make_pod("p" + std::to_string(i), 350, 100 * testing::kMi));
  const Plan p = plan(s, cat, testing::no_budgets(), 0);
  EXPECT_EQ(launched(p), 5);
  ASSERT_EQ(p.launch.size(), 1u);
  EXPECT_EQ(p.launch[0].instance_type, "small");
  EXPECT_EQ(p.launch[0].capacity_type, CapacityType::Spot);
  EXPECT_EQ(p.launch[0].pods.size(), 10u);
  EXPECT_NEAR(p.usd_per_hour, 0.50, 1e-9);
  EXPECT_TRUE(p.unschedulable.empty());
}

TEST(Packing, PicksTheTypeWithTheLowestPricePerPodAndRightSizesTheTail) {
  // big holds 10 pods of 1 CPU for $0.80 ($0.08/pod), small holds 2 for $0.20 ($0.10/pod).
  // 21 pods: 2 big (20 pods, $1.60) + 1 small for the last pod ($0.20) = $1.80;
  // a third big node would cost $2.40.
  const Catalog cat = make_catalog(
      {{"big", 10000, 64 * kGi, 0, 0.80, 2.0}, {"small", 2000, 8 * kGi, 0, 0.20, 0.5}});
  Snapshot s;
  for (int i = 0; i < 21; ++i) s.pods.push_back(make_pod("p" + std::to_string(i), 1000, kGi));
  const Plan p = plan(s, cat, testing::no_budgets(), 0);
  EXPECT_EQ(launched(p), 3);
  EXPECT_NEAR(p.usd_per_hour, 1.80, 1e-9);
}

TEST(Packing, SixteenGpuGangOfEightGpuPodsTakesTwoEightGpuInstancesInTheCheapestZone) {
  // Zone b is 10% cheaper than a and c.
  const Catalog cat = make_catalog({{"p3.16xlarge", 64000, 488 * kGi, 8, 7.34, 24.48, "V100"},
                                    {"p3.8xlarge", 32000, 244 * kGi, 4, 3.67, 12.24, "V100"}},
                                   {"us-east-1a", "us-east-1b", "us-east-1c"}, {1.0, 0.9, 1.0});
  Snapshot s;
  for (int i = 0; i < 2; ++i) {
    Pod pod = make_pod("train-" + std::to_string(i), 48000, 300 * kGi, 8);
    pod.gang = Gang{"train", 2};
    s.pods.push_back(pod);
  }
  const Plan p = plan(s, cat, testing::no_budgets(), 0);
  ASSERT_EQ(p.launch.size(), 1u);
  EXPECT_EQ(p.launch[0].instance_type, "p3.16xlarge");
  EXPECT_EQ(p.launch[0].zone, "us-east-1b");
  EXPECT_EQ(p.launch[0].count, 2);
  EXPECT_EQ(p.launch[0].pods.size(), 2u);
}

TEST(Packing, GangWithAMissingMemberLaunchesNothing) {
  const Catalog cat = make_catalog({{"p3.16xlarge", 64000, 488 * kGi, 8, 7.34, 24.48, "V100"}});
  Snapshot s;
  Pod pod = make_pod("train-0", 48000, 300 * kGi, 8);
  pod.gang = Gang{"train", 2};
  s.pods.push_back(pod);
  const Plan p = plan(s, cat, testing::no_budgets(), 0);
  EXPECT_TRUE(p.launch.empty());
  const auto* u = testing::reason_for(p, "team-a/train-0");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->kind, UnschedulableKind::GangIncomplete);
  EXPECT_EQ(u->reason, "gang train has 1 of 2 pods; it starts only when all exist");
}

TEST(Packing, PodRequiringOnDemandNeverLandsOnSpot) {
  const Catalog cat = make_catalog({{"m5.large", 2000, 8 * kGi, 0, 0.03, 0.096}});
  Snapshot s;
  Pod od = make_pod("db", 1000, kGi);
  od.node_selector["karpenter.sh/capacity-type"] = "on-demand";  // the Karpenter alias
  s.pods.push_back(od);
  s.pods.push_back(make_pod("batch", 1000, kGi));
  const Plan p = plan(s, cat, testing::no_budgets(), 0);
  ASSERT_EQ(p.launch.size(), 2u);
  for (const auto& l : p.launch) {
    ASSERT_EQ(l.pods.size(), 1u);
    if (l.pods[0] == "team-a/db")
      EXPECT_EQ(l.capacity_type, CapacityType::OnDemand);
    else
      EXPECT_EQ(l.capacity_type, CapacityType::Spot);
  }
}

TEST(Packing, FallsBackToOnDemandOnlyWhenNoSpotOfferingCanTakeThePod) {
  // "nospot" has no spot price; "spotty" does but is too small for the pod.
  const Catalog cat = make_catalog(
      {{"spotty", 1000, 4 * kGi, 0, 0.01, 0.05}, {"nospot", 4000, 16 * kGi, 0, 0, 0.20}});
  Snapshot s;
  s.pods.push_back(make_pod("big", 3000, 8 * kGi));
  const Plan p = plan(s, cat, testing::no_budgets(), 0);
  ASSERT_EQ(p.launch.size(), 1u);
  EXPECT_EQ(p.launch[0].instance_type, "nospot");
  EXPECT_EQ(p.launch[0].capacity_type, CapacityType::OnDemand);
}

TEST(Packing, BackedOffOfferingFallsBackToTheNextCheapest) {
  const Catalog cat = make_catalog(
      {{"cheap", 2000, 8 * kGi, 0, 0.02, 0.1}, {"dearer", 2000, 8 * kGi, 0, 0.03, 0.1}},
      {"us-east-1a"});
  Snapshot s;
  s.pods.push_back(make_pod("p", 1000, kGi));
  Policy pol = testing::no_budgets();
  pol.zones = {"us-east-1a"};
  pol.unavailable_offerings = {"cheap/us-east-1a/spot"};
  Plan p = plan(s, cat, pol, 0);
  ASSERT_EQ(p.launch.size(), 1u);
  EXPECT_EQ(p.launch[0].instance_type, "dearer");
  EXPECT_EQ(p.launch[0].capacity_type, CapacityType::Spot);

  // Every spot offering backed off: on-demand takes over.
  pol.unavailable_offerings.insert("dearer/us-east-1a/spot");
  p = plan(s, cat, pol, 0);
  ASSERT_EQ(p.launch.size(), 1u);
  EXPECT_EQ(p.launch[0].capacity_type, CapacityType::OnDemand);

  // Everything backed off: the pod waits, and the reason says so.
  pol.unavailable_offerings.insert("cheap/us-east-1a/on-demand");
  pol.unavailable_offerings.insert("dearer/us-east-1a/on-demand");
  p = plan(s, cat, pol, 0);
  EXPECT_TRUE(p.launch.empty());
  const auto* u = testing::reason_for(p, "team-a/p");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->kind, UnschedulableKind::CapacityBackoff);
  EXPECT_NE(u->reason.find("backed off"), std::string::npos) << u->reason;
}

TEST(Packing, RequiredAntiAffinityOnHostnamePutsOnePodPerNode) {
  const Catalog cat = make_catalog({{"m5.xlarge", 4000, 16 * kGi, 0, 0.05, 0.192}});
  Snapshot s;
  for (int i = 0; i < 3; ++i) {
    Pod p = make_pod("web-" + std::to_string(i), 100, 100 * testing::kMi);
    p.owner = {"ReplicaSet", "web", "rs"};
    p.labels["app"] = "web";
    LabelSelector sel;
    sel.match_labels["app"] = "web";
    p.anti_affinity_hostname.push_back(sel);
    s.pods.push_back(p);
  }
  const Plan p = plan(s, cat, testing::no_budgets(), 0);
  EXPECT_EQ(launched(p), 3);
}

TEST(Packing, PlanIsDeterministic) {
  const Catalog cat =
      make_catalog({{"a", 4000, 16 * kGi, 0, 0.05, 0.2}, {"b", 8000, 32 * kGi, 0, 0.09, 0.4}});
  Snapshot s;
  for (int i = 0; i < 50; ++i)
    s.pods.push_back(make_pod("p" + std::to_string(i), 100 + 50 * (i % 7), kGi * (1 + i % 3)));
  const Plan a = plan(s, cat, testing::no_budgets(), 0);
  const Plan b = plan(s, cat, testing::no_budgets(), 0);
  ASSERT_EQ(a.launch.size(), b.launch.size());
  for (std::size_t i = 0; i < a.launch.size(); ++i) {
    EXPECT_EQ(a.launch[i].instance_type, b.launch[i].instance_type);
    EXPECT_EQ(a.launch[i].zone, b.launch[i].zone);
    EXPECT_EQ(a.launch[i].count, b.launch[i].count);
    EXPECT_EQ(a.launch[i].pods, b.launch[i].pods);
  }
}

TEST(Packing, EqualPricePerGpuGivesLoneJobsSmallNodesAndAGangOneNode) {
  // V100 costs the same per GPU in every size. Eight 1-GPU jobs on eight 1-GPU nodes cost what
  // one 8-GPU node does, and each node can go when its own job ends; an 8-replica gang of 1-GPU
  // pods starts and ends together, so it takes the one big node.
  const Catalog cat = make_catalog({{"p3.16xlarge", 64000, 488 * kGi, 8, 7.344, 24.48, "V100"},
                                    {"p3.8xlarge", 32000, 244 * kGi, 4, 3.672, 12.24, "V100"},
                                    {"p3.2xlarge", 8000, 61 * kGi, 1, 0.918, 3.06, "V100"}},
                                   {"us-east-1a"});
  Snapshot lone;
  Snapshot gang;
  for (int i = 0; i < 8; ++i) {
    lone.pods.push_back(make_pod("job-" + std::to_string(i), 6000, 40 * kGi, 1));
    Pod pod = make_pod("rank-" + std::to_string(i), 6000, 40 * kGi, 1);
    pod.gang = Gang{"train", 8};
    gang.pods.push_back(pod);
  }
  const Plan a = plan(lone, cat, testing::no_budgets(), 0);
  ASSERT_EQ(a.launch.size(), 1u);
  EXPECT_EQ(a.launch[0].instance_type, "p3.2xlarge");
  EXPECT_EQ(launched(a), 8);
  const Plan b = plan(gang, cat, testing::no_budgets(), 0);
  ASSERT_EQ(b.launch.size(), 1u);
  EXPECT_EQ(b.launch[0].instance_type, "p3.16xlarge");
  EXPECT_EQ(launched(b), 1);
  EXPECT_NEAR(a.usd_per_hour, b.usd_per_hour, 1e-9);
}

TEST(ClassPacker, CostOfManyPodsIsBulkNodesPlusTheCheapestTail) {
  const Catalog cat =
      make_catalog({{"big", 10000, 64 * kGi, 0, 0.80, 2.0}, {"small", 2000, 8 * kGi, 0, 0.20, 0.5}},
                   {"us-east-1a"});
  std::vector<std::uint32_t> spot;
  for (std::uint32_t i = 0; i < cat.offerings.size(); ++i) {
    if (cat.offerings[i].capacity_type == CapacityType::Spot) spot.push_back(i);
  }
  Resources req;
  req.cpu_milli = 1000;
  req.memory_bytes = kGi;
  req.pods = 1;
  const planner::ClassPacker pk(req, false, spot, cat);
  EXPECT_EQ(pk.cost(1), 200'000);  // one small
  EXPECT_EQ(pk.cost(4), 400'000);  // two small ($0.40) beat one big ($0.80)
  EXPECT_EQ(pk.cost(7), 800'000);  // one big ($0.80) ties four small; never more
  EXPECT_EQ(pk.nodes(7), 4);       // the tie goes to the small nodes
  const planner::ClassPacker fewer(req, false, spot, cat, planner::PriceTies::FewerNodes);
  EXPECT_EQ(fewer.cost(7), 800'000);
  EXPECT_EQ(fewer.nodes(7), 1);
  EXPECT_EQ(pk.cost(1001), 100 * 800'000 + 200'000);
  EXPECT_EQ(pk.nodes(1001), 101);
}

}  // namespace
}  // namespace fitscale

namespace fitscale {
namespace {

TEST(Packing, CpuHeavyAndMemoryHeavyPodsShareNodes) {
  // One type, 4 CPUs and 16 GiB. Alone, each pod below needs its own node (8 nodes); a
  // 3.5-CPU/1-GiB pod and a 0.1-CPU/12-GiB pod fit together: 4 nodes.
  const Catalog cat =
      testing::make_catalog({{"m", 4000, 16 * testing::kGi, 0, 0.10, 0.3}}, {"us-east-1a"});
  Snapshot s;
  for (int i = 0; i < 4; ++i) {
    s.pods.push_back(testing::make_pod("cpu-" + std::to_string(i), 3500, testing::kGi));
    s.pods.push_back(testing::make_pod("mem-" + std::to_string(i), 100, 12 * testing::kGi));
  }
  Policy pol = testing::no_budgets();
  pol.zones = {"us-east-1a"};
  const Plan p = plan(s, cat, pol, 0);
  EXPECT_EQ(testing::launched(p), 4);
  ASSERT_EQ(p.launch.size(), 1u);
  EXPECT_EQ(p.launch[0].pods.size(), 8u);
}

TEST(Packing, MixedNodesNeverHoldMoreThanTheirAllocatable) {
  const Catalog cat = testing::make_catalog({{"a", 4000, 16 * testing::kGi, 0, 0.05, 0.2},
                                             {"b", 16000, 32 * testing::kGi, 0, 0.15, 0.6},
                                             {"c", 2000, 64 * testing::kGi, 0, 0.12, 0.5}},
                                            {"us-east-1a"});
  Snapshot s;
  const std::int64_t cpus[] = {100, 250, 500, 1000, 1500};
  const std::int64_t mems[] = {100, 256, 512, 1024, 2048, 4096};
  std::map<std::string, Resources> req;
  for (int i = 0; i < 600; ++i) {
    Pod p = testing::make_pod("p" + std::to_string(i), cpus[(i * 7) % 5],
                              mems[(i * 11) % 6] * testing::kMi);
    req[p.key()] = p.requests;
    s.pods.push_back(p);
  }
  Policy pol = testing::no_budgets();
  pol.zones = {"us-east-1a"};
  const Plan p = plan(s, cat, pol, 0);
  std::size_t served = 0;
  for (const auto& l : p.launch) {
    Resources sum;
    for (const auto& k : l.pods) sum += req.at(k);
    const Resources cap = cat.offerings[l.offering_index].allocatable.scaled(l.count);
    EXPECT_LE(sum.cpu_milli, cap.cpu_milli) << l.instance_type;
    EXPECT_LE(sum.memory_bytes, cap.memory_bytes) << l.instance_type;
    EXPECT_LE(sum.pods, cap.pods) << l.instance_type;
    served += l.pods.size();
  }
  EXPECT_EQ(served, 600u);
}

}  // namespace
}  // namespace fitscale
