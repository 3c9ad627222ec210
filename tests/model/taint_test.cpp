#include "model/taint.h"

#include <gtest/gtest.h>

#include "model/error.h"

namespace fitscale {
namespace {

const Taint kGpu{"nvidia.com/gpu", "present", TaintEffect::NoSchedule};
const Taint kSpot{"spot", "true", TaintEffect::NoExecute};
const Taint kSoft{"soft", "x", TaintEffect::PreferNoSchedule};

TEST(Toleration, EqualNeedsKeyAndValue) {
  EXPECT_TRUE(tolerates(Toleration{"nvidia.com/gpu", false, "present", std::nullopt}, kGpu));
  EXPECT_FALSE(tolerates(Toleration{"nvidia.com/gpu", false, "absent", std::nullopt}, kGpu));
  EXPECT_FALSE(tolerates(Toleration{"other", false, "present", std::nullopt}, kGpu));
}

TEST(Toleration, ExistsIgnoresValueAndEmptyKeyToleratesAll) {
  EXPECT_TRUE(tolerates(Toleration{"nvidia.com/gpu", true, "", std::nullopt}, kGpu));
  EXPECT_TRUE(tolerates(Toleration{"", true, "", std::nullopt}, kGpu));
  EXPECT_TRUE(tolerates(Toleration{"", true, "", std::nullopt}, kSpot));
  EXPECT_FALSE(tolerates(Toleration{"", false, "", std::nullopt}, kGpu))
      << "empty key needs Exists";
}

TEST(Toleration, EffectMustMatchWhenGiven) {
  EXPECT_TRUE(tolerates(Toleration{"spot", true, "", TaintEffect::NoExecute}, kSpot));
  EXPECT_FALSE(tolerates(Toleration{"spot", true, "", TaintEffect::NoSchedule}, kSpot));
  EXPECT_FALSE(tolerates(Toleration{"", true, "", TaintEffect::NoSchedule}, kSpot));
}

TEST(Toleration, PreferNoScheduleNeverBlocks) {
  EXPECT_TRUE(tolerates_all({}, {kSoft}));
  EXPECT_FALSE(tolerates_all({}, {kSoft, kGpu}));
  const std::vector<Taint> taints = {kSoft, kGpu};
  EXPECT_EQ(first_untolerated({}, taints), &taints[1]);
}

TEST(Toleration, FirstUntoleratedNamesTheBlockingTaint) {
  const std::vector<Taint> taints = {kSoft, kGpu, kSpot};
  const std::vector<Toleration> tol = {{"nvidia.com/gpu", true, "", std::nullopt}};
  const Taint* t = first_untolerated(tol, taints);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->key, "spot");
  EXPECT_FALSE(tolerates_all(tol, taints));
  EXPECT_TRUE(tolerates_all(
      {{"nvidia.com/gpu", true, "", std::nullopt}, {"spot", false, "true", std::nullopt}}, taints));
}

TEST(TaintEffect, ParsesAndRejects) {
  EXPECT_EQ(parse_taint_effect("NoSchedule"), TaintEffect::NoSchedule);
  EXPECT_EQ(parse_taint_effect("PreferNoSchedule"), TaintEffect::PreferNoSchedule);
  EXPECT_EQ(parse_taint_effect("NoExecute"), TaintEffect::NoExecute);
  EXPECT_STREQ(to_string(TaintEffect::NoExecute), "NoExecute");
  EXPECT_THROW(parse_taint_effect("noschedule"), InputError);
}

}  // namespace
}  // namespace fitscale
