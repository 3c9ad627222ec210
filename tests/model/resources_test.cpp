#include "model/resources.h"

#include <gtest/gtest.h>

#include "model/quantity.h"

namespace fitscale {
namespace {

Resources res(std::int64_t cpu_m, std::int64_t mem_mib, std::int64_t gpus = 0) {
  Resources r;
  r.cpu_milli = cpu_m;
  r.memory_bytes = mem_mib << 20;
  r.gpus = gpus;
  r.pods = 1;
  return r;
}

TEST(Resources, SetByKubernetesNameUsesEachResourcesUnit) {
  Resources r;
  r.set("cpu", Quantity::parse("1500m").milli());
  r.set("memory", Quantity::parse("1Gi").milli());
  r.set("nvidia.com/gpu", Quantity::parse("2").milli());
  r.set("pods", Quantity::parse("110").milli());
  r.set("ephemeral-storage", Quantity::parse("20Gi").milli());
  r.set("vendor.com/fpga", Quantity::parse("1").milli());
  r.set("hugepages-2Mi", Quantity::parse("0").milli());  // zeros are not stored
  EXPECT_EQ(r.cpu_milli, 1500);
  EXPECT_EQ(r.memory_bytes, 1LL << 30);
  EXPECT_EQ(r.gpus, 2);
  EXPECT_EQ(r.pods, 110);
  EXPECT_EQ(r.ephemeral_bytes, 20LL << 30);
  ASSERT_EQ(r.extended.size(), 1u);
  EXPECT_EQ(r.get("vendor.com/fpga"), 1);
  EXPECT_EQ(r.get("cpu"), 1500);
  EXPECT_EQ(r.get("memory"), 1LL << 30);
  EXPECT_EQ(r.get("unknown.io/thing"), 0);
}

TEST(Resources, ExtendedResourcesStaySortedAndAddUp) {
  Resources a;
  a.set("z.io/b", 2000);
  a.set("a.io/a", 1000);
  EXPECT_EQ(a.extended.front().first, "a.io/a");
  Resources b;
  b.set("m.io/c", 3000);
  b.set("a.io/a", 1000);
  Resources sum = a + b;
  ASSERT_EQ(sum.extended.size(), 3u);
  EXPECT_EQ(sum.extended[0], (std::pair<std::string, std::int64_t>{"a.io/a", 2}));
  EXPECT_EQ(sum.extended[1].first, "m.io/c");
  EXPECT_EQ(sum.extended[2].first, "z.io/b");
  Resources back = sum - b;
  EXPECT_EQ(back, a) << "subtracting to zero removes the entry";
}

TEST(Resources, FitsComponentWise) {
  Resources node = res(4000, 16384, 1);
  node.pods = 110;
  EXPECT_TRUE(res(4000, 16384, 1).fits_in(node));
  EXPECT_FALSE(res(4001, 1).fits_in(node));
  EXPECT_EQ(res(4001, 1).first_shortfall(node), "cpu");
  EXPECT_EQ(res(1, 16385).first_shortfall(node), "memory");
  EXPECT_EQ(res(1, 1, 2).first_shortfall(node), "nvidia.com/gpu");
  Resources full = node;
  full.pods = 0;
  EXPECT_EQ(res(1, 1).first_shortfall(full), "pods");
}

TEST(Resources, UnknownExtendedResourceNeverFits) {
  Resources node = res(4000, 16384);
  node.pods = 110;
  Resources pod = res(100, 100);
  pod.set("example.com/widget", 1000);
  EXPECT_FALSE(pod.fits_in(node));
  EXPECT_EQ(pod.first_shortfall(node), "example.com/widget");
  node.set("example.com/widget", 1000);
  EXPECT_TRUE(pod.fits_in(node));
}

TEST(Resources, EphemeralStorageOnlyLimitsWhenTheNodeReportsIt) {
  Resources node = res(4000, 16384);
  node.pods = 110;
  Resources pod = res(100, 100);
  pod.ephemeral_bytes = 50LL << 30;
  EXPECT_TRUE(pod.fits_in(node));
  node.ephemeral_bytes = 20LL << 30;
  EXPECT_EQ(pod.first_shortfall(node), "ephemeral-storage");
}

TEST(Resources, MaxScaledAndZero) {
  Resources a = res(2000, 100);
  Resources b = res(500, 4096, 1);
  b.set("x.io/y", 2000);
  Resources m = Resources::max(a, b);
  EXPECT_EQ(m.cpu_milli, 2000);
  EXPECT_EQ(m.memory_bytes, 4096LL << 20);
  EXPECT_EQ(m.gpus, 1);
  EXPECT_EQ(m.get("x.io/y"), 2);
  Resources s = b.scaled(3);
  EXPECT_EQ(s.cpu_milli, 1500);
  EXPECT_EQ(s.get("x.io/y"), 6);
  EXPECT_EQ(s.pods, 3);
  EXPECT_TRUE(Resources{}.is_zero());
  EXPECT_TRUE(b.scaled(0).is_zero());
  EXPECT_FALSE(a.is_zero());
}

TEST(Resources, ToStringForMessages) {
  Resources r = res(3500, 12288, 1);
  EXPECT_EQ(r.to_string(), "cpu 3500m, memory 12.0 GiB, nvidia.com/gpu 1");
}

}  // namespace
}  // namespace fitscale
