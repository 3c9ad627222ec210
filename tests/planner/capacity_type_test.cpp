#include "planner/capacity_type.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fixtures.h"

namespace fitscale {
namespace {

using testing::kGi;
using testing::make_catalog;
using testing::make_pod;

TEST(CapacityType, SpotTimeFactorIsTheExpectedRunTimeWithRestartsOverTheRunTime) {
  EXPECT_DOUBLE_EQ(planner::spot_time_factor(0, 3600, std::nullopt), 1.0);
  // h t = 1: (e - 1) / 1.
  EXPECT_NEAR(planner::spot_time_factor(1.0, 3600, std::nullopt), std::expm1(1.0), 1e-12);
  // Checkpoints every 6 minutes: ten intervals of h c = 0.1, each (e^0.1 - 1) / 0.1 / c.
  EXPECT_NEAR(planner::spot_time_factor(1.0, 3600, 360), std::expm1(0.1) / 0.1, 1e-12);
  // An interval longer than the run is the run.
  EXPECT_NEAR(planner::spot_time_factor(1.0, 3600, 36000), std::expm1(1.0), 1e-12);
  EXPECT_TRUE(std::isinf(planner::spot_time_factor(1.0, 3600 * 1000, std::nullopt)));
}

// One type: spot $1/h, on-demand $3/h, Spot Advisor bucket 4 (>20% a month: about 0.000394 per
// hour). Without checkpoints spot stays cheaper up to h t of about 2.0 ((e^x - 1) / x = 3), i.e.
// some 5,000 hours.
Catalog one_type() {
  Catalog c = make_catalog({{"g", 8000, 32 * kGi, 1, 1.0, 3.0}}, {"us-east-1a"});
  c.types[0].spot_interruption_bucket = 4;
  return c;
}

Pod declaring(const std::string& name, const std::string& runtime, const std::string& interval) {
  Pod p = make_pod(name, 4000, 16 * kGi, 1);
  if (!runtime.empty()) p.annotations[std::string(annotation::kExpectedRuntime)] = runtime;
  if (!interval.empty()) p.annotations[std::string(annotation::kCheckpointInterval)] = interval;
  return p;
}

Policy policy() {
  Policy p = testing::no_budgets();
  p.zones = {"us-east-1a"};
  return p;
}

CapacityType launched_capacity(const Pod& pod) {
  Snapshot s;
  s.pods.push_back(pod);
  const Plan p = plan(s, one_type(), policy(), 0);
  EXPECT_EQ(p.launch.size(), 1u) << pod.name;
  return p.launch.empty() ? CapacityType::Spot : p.launch[0].capacity_type;
}

TEST(CapacityType, AJobGoesOnDemandOnlyWhenItsExpectedLossOnSpotIsAboveThePremium) {
  EXPECT_EQ(launched_capacity(declaring("nothing", "", "")), CapacityType::Spot);
  EXPECT_EQ(launched_capacity(declaring("day", "24h", "")), CapacityType::Spot);
  // 10,000 hours, from zero after every interruption: h t = 3.94, a spot run takes
  // (e^3.94 - 1) / 3.94 = 12.8 times as long in expectation, $12.8 per hour of work against $3.
  EXPECT_EQ(launched_capacity(declaring("long", "10000h", "")), CapacityType::OnDemand);
  // The same run with an hourly checkpoint loses at most an hour per interruption: spot.
  EXPECT_EQ(launched_capacity(declaring("checkpointed", "10000h", "1h")), CapacityType::Spot);
  // A malformed annotation declares nothing.
  EXPECT_EQ(launched_capacity(declaring("typo", "forever", "")), CapacityType::Spot);
}

TEST(CapacityType, PodsOfOneClassSplitByWhatTheyDeclare) {
  Snapshot s;
  s.pods.push_back(declaring("short", "1h", ""));
  s.pods.push_back(declaring("long", "10000h", ""));
  const Plan p = plan(s, one_type(), policy(), 0);
  ASSERT_EQ(p.launch.size(), 2u);
  int spot = 0, on_demand = 0;
  for (const auto& l : p.launch) {
    ASSERT_EQ(l.pods.size(), 1u);
    if (l.capacity_type == CapacityType::Spot) {
      ++spot;
      EXPECT_EQ(l.pods[0], "team-a/short");
    } else {
      ++on_demand;
      EXPECT_EQ(l.pods[0], "team-a/long");
    }
  }
  EXPECT_EQ(spot, 1);
  EXPECT_EQ(on_demand, 1);
}

}  // namespace
}  // namespace fitscale
