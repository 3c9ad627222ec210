#include "model/budget.h"

#include <gtest/gtest.h>

namespace fitscale {
namespace {

TEST(Budgets, NamespaceKeysOverrideDefaultsAndUnsetKeysInherit) {
  Budgets b;
  b.defaults.usd_per_hour = 200;
  b.defaults.usd_per_day = 3000;
  b.defaults.max_runtime = 24 * 3600;
  b.namespaces["research-a"].usd_per_hour = 500;
  b.namespaces["research-a"].max_runtime = 72 * 3600;

  const NamespaceBudget a = b.for_namespace("research-a");
  EXPECT_EQ(a.usd_per_hour, 500);
  EXPECT_EQ(a.usd_per_day, 3000);  // inherited
  EXPECT_EQ(a.max_runtime, 72 * 3600);
  EXPECT_FALSE(a.usd_per_month.has_value());  // nobody sets it: no cap

  const NamespaceBudget other = b.for_namespace("someone-else");
  EXPECT_EQ(other.usd_per_hour, 200);
  EXPECT_EQ(other.max_runtime, 24 * 3600);
}

// The numbers the defaults must satisfy (issue 4, docs/budgets.md).
TEST(SafeDefaultBudgets, RefuseTenThousandGpusAndLetAnEightGpuJobThrough) {
  const Budgets b = safe_default_budgets();
  const NamespaceBudget ns = b.for_namespace("any-team");
  ASSERT_TRUE(b.cluster.gpus && ns.usd_per_job && ns.max_runtime && ns.usd_per_hour);

  // The intern's job: 10,000 V100s = 1,250 p3.16xlarge, even at spot ($7.344/h) for 24h.
  const double intern_per_hour = 1250 * 7.344;
  EXPECT_GT(10000, *b.cluster.gpus);
  EXPECT_GT(intern_per_hour * static_cast<double>(*ns.max_runtime) / 3600, *ns.usd_per_job);
  EXPECT_GT(intern_per_hour, *ns.usd_per_hour);

  // One on-demand p3.16xlarge (8 V100, $24.48/h) for the default worst-case runtime.
  const double eight_gpu = 24.48;
  EXPECT_LE(8, *b.cluster.gpus);
  EXPECT_LE(eight_gpu * static_cast<double>(*ns.max_runtime) / 3600, *ns.usd_per_job);
  EXPECT_LE(eight_gpu, *ns.usd_per_hour);
  EXPECT_LE(eight_gpu, *b.cluster.usd_per_hour);
  ASSERT_TRUE(ns.usd_per_day);
  EXPECT_LE(eight_gpu * static_cast<double>(*ns.max_runtime) / 3600, *ns.usd_per_day);
}

}  // namespace
}  // namespace fitscale
