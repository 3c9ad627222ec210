// Budget objects as the API serves them: a list page with a bad item keeps the good ones, and the
// status the leader writes reads back as it was written.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "kube/kube_budget_store.h"
#include "model/budget_manifest.h"

namespace fitscale {
namespace {

TEST(BudgetCodec, BadItemIsSkippedNamedAndTheOthersDecode) {
  const auto codec = budget_codec("fitscale");
  EXPECT_EQ(codec.path, "/apis/fitscale.io/v1alpha1/budgets");
  const std::string page = R"({"kind":"BudgetList","metadata":{"resourceVersion":"7"},"items":[
    {"apiVersion":"fitscale.io/v1alpha1","kind":"Budget",
     "metadata":{"name":"caps","namespace":"team-a","uid":"u1","resourceVersion":"5"},
     "spec":{"usdPerDay":30,"maxRuntime":"2h"}},
    {"apiVersion":"fitscale.io/v1alpha1","kind":"Budget",
     "metadata":{"name":"caps","namespace":"team-b"},"spec":{"gpus":3}},
    {"apiVersion":"fitscale.io/v1alpha1","kind":"Budget",
     "metadata":{"name":"cluster","namespace":"fitscale"},"spec":{"gpus":3}}]})";
  std::vector<std::pair<std::string, BudgetObject>> items;
  std::vector<std::pair<std::string, std::string>> bad;
  codec.decode_list(page, items, bad);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].first, "team-a/caps");
  EXPECT_EQ(items[0].second.caps.usd_per_day, 30.0);
  EXPECT_EQ(items[0].second.caps.max_runtime, 7200);
  EXPECT_EQ(items[0].second.uid, "u1");
  EXPECT_EQ(items[1].second.scope, BudgetScope::Cluster);
  EXPECT_EQ(items[1].second.cluster_caps.gpus, 3);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].first, "team-b/caps");
  EXPECT_EQ(bad[0].second, "Budget team-b/caps: spec: unknown key \"gpus\"");
}

TEST(BudgetCodec, WrittenStatusReadsBack) {
  BudgetStatus s;
  s.day = "2026-12-01";
  s.month = "2026-12";
  s.spent_today = 1'234'567;
  s.spent_this_month = 9'876'543'210;
  s.committed_micros_per_hour = 225'600;
  s.alerts_sent = {"day/2026-12-01/50", "month/2026-12/80"};
  s.updated_at = 1'795'000'000;
  nlohmann::json obj = {{"apiVersion", "fitscale.io/v1alpha1"},
                        {"kind", "Budget"},
                        {"metadata", {{"name", "caps"}, {"namespace", "team-a"}}},
                        {"spec", nlohmann::json::object()},
                        {"status", nlohmann::json::parse(budget_status_json(s))}};
  const BudgetObject o = budget_codec("fitscale").decode_object(obj.dump());
  ASSERT_TRUE(o.status) << o.status_problem;
  EXPECT_EQ(*o.status, s);
}

}  // namespace
}  // namespace fitscale
