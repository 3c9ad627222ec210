#include "sim/report.h"

#include <gtest/gtest.h>

namespace fitscale {
namespace {

TEST(WaitStats, NearestRankPercentiles) {
  std::vector<double> w;
  for (int i = 1; i <= 100; ++i) w.push_back(101 - i);  // 100..1, unsorted on purpose
  SimWait s = wait_stats(w);
  EXPECT_EQ(s.p50, 50);
  EXPECT_EQ(s.p90, 90);
  EXPECT_EQ(s.p99, 99);
  EXPECT_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  SimWait three = wait_stats({190, 190, 300});
  EXPECT_EQ(three.p50, 190);  // rank ceil(1.5) = 2
  EXPECT_EQ(three.p90, 300);
  EXPECT_EQ(wait_stats({}).max, 0);
}

TEST(ReportJson, HasTheIssueFieldsInAStableOrderWithRoundedMoney) {
  SimReport r;
  r.jobs = {3, 2, 1};
  r.refusals.push_back({"team-a/huge", "team-a", 40, "too big"});
  r.cost_usd.total = 1.0 / 3.0;
  r.cost_usd.by_namespace["team-b"] = 0.1 + 0.2;
  r.cost_usd.by_namespace["team-a"] = 1;
  r.series.push_back({0, 1, 1, 0, 0.918, 2, 0});
  std::string a = report_json(r);
  EXPECT_EQ(a, report_json(r));
  EXPECT_NE(a.find("\"total\": 0.333333"), std::string::npos) << a;
  EXPECT_NE(a.find("\"team-b\": 0.3\n"), std::string::npos) << a;  // not 0.30000000000000004
  EXPECT_LT(a.find("\"team-a\""), a.find("\"team-b\""));
  const char* keys[] = {"\"jobs\"",      "\"refusals\"", "\"cost_usd\"",      "\"lower_bound_usd\"",
                        "\"evictions\"", "\"wait_s\"",   "\"nodes\"",         "\"gpu_hours\"",
                        "\"sim\"",       "\"series\"",   "\"costliest_jobs\""};
  std::size_t last = 0;
  for (const char* k : keys) {
    std::size_t at = a.find(k);
    ASSERT_NE(at, std::string::npos) << k;
    EXPECT_GT(at, last) << k;
    last = at;
  }
}

}  // namespace
}  // namespace fitscale
