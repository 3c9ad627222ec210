#include "cost/attribution.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

namespace fitscale::cost {
namespace {

Resources res(std::int64_t cpu_milli, std::int64_t mem_gib, std::int64_t gpus) {
  Resources r;
  r.cpu_milli = cpu_milli;
  r.memory_bytes = mem_gib << 30;
  r.gpus = gpus;
  return r;
}

NodeCharge p3_16xlarge() {
  NodeCharge n;
  n.node_id = "i-1";
  n.instance_type = "p3.16xlarge";
  n.micros_per_hour = 24'480'000;
  n.allocatable = res(63'000, 480, 8);
  n.owner_namespace = "research-a";
  n.owner_job = "research-a/train";
  return n;
}

TEST(Attribution, DominantShareIsTheLargestFraction) {
  // 4 of 8 GPUs with a little CPU: the GPUs dominate.
  EXPECT_EQ(dominant_share(res(6'300, 48, 4), res(63'000, 480, 8)), kWholeNode / 2);
  // A CPU-heavy pod on a GPU node: CPU dominates.
  EXPECT_EQ(dominant_share(res(31'500, 1, 0), res(63'000, 480, 8)), kWholeNode / 2);
  // A GPU request on a node without GPUs takes the whole node.
  EXPECT_EQ(dominant_share(res(100, 1, 1), res(63'000, 480, 0)), kWholeNode);
}

TEST(Attribution, OneHourOfAHalfUsedNodeSplitsBetweenThePodAndIdle) {
  const NodeCharge n = p3_16xlarge();
  const Split s =
      split_for({PodUsage{"research-b/w-0", "research-b", "research-b/job", res(6'000, 40, 4)}},
                n.allocatable);
  const auto charges = attribute(n, 0, s, 0, 3600);
  ASSERT_EQ(charges.size(), 2u);
  EXPECT_EQ(charges[0].ns, "research-b");
  EXPECT_EQ(charges[0].micros, 12'240'000);
  EXPECT_TRUE(charges[1].idle);
  EXPECT_EQ(charges[1].ns, "research-a");  // the owner pays for what nobody uses
  EXPECT_EQ(charges[1].micros, 12'240'000);
}

TEST(Attribution, OvercommittedPodsShareTheWholeNodeAndNothingIsIdle) {
  const NodeCharge n = p3_16xlarge();
  const Split s = split_for(
      {PodUsage{"a/x", "a", "a/x", res(1000, 1, 8)}, PodUsage{"b/y", "b", "b/y", res(1000, 1, 8)}},
      n.allocatable);
  EXPECT_EQ(s.idle_weight, 0);
  const auto charges = attribute(n, 0, s, 0, 3600);
  ASSERT_EQ(charges.size(), 2u);
  EXPECT_EQ(charges[0].micros + charges[1].micros, 24'480'000);
}

TEST(Attribution, NodeCostTelescopesHoweverTheTimeIsCut) {
  // $0.918/h for 7 seconds is not a whole number of micro-dollars; cutting the run into pieces
  // must not gain or lose any.
  const Micros price = 918'000;
  Micros pieces = 0;
  for (Time t = 100; t < 100 + 7 * 1001; t += 7) pieces += node_cost(price, 100, t, t + 7);
  EXPECT_EQ(pieces, node_cost(price, 100, 100, 100 + 7 * 1001));
  EXPECT_EQ(node_cost(price, 100, 100, 3700), 918'000);
}

TEST(Attribution, SplitExactAddsUpForRandomWeights) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 2000; ++round) {
    const std::size_t n = 1 + rng() % 9;
    std::vector<std::int64_t> w(n);
    for (auto& x : w) x = static_cast<std::int64_t>(rng() % kWholeNode);
    w[rng() % n] += 1;  // never all zero
    const Micros total = static_cast<Micros>(rng() % 100'000'000'000ULL);
    const std::vector<Micros> parts = split_exact(total, w);
    ASSERT_EQ(std::accumulate(parts.begin(), parts.end(), Micros{0}), total);
    const double sum_w = std::accumulate(w.begin(), w.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      // Each part is within one micro-dollar of its exact proportional share.
      EXPECT_LE(std::abs(static_cast<double>(parts[i]) -
                         static_cast<double>(total) * static_cast<double>(w[i]) / sum_w),
                1.0001);
    }
  }
}

}  // namespace
}  // namespace fitscale::cost
