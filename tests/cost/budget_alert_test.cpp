#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "cost/budget_alert_recorder.h"
#include "cost/memory_ledger.h"
#include "cost/sqlite_ledger.h"

namespace fitscale {
namespace {

constexpr Time kDay = 1767571200;  // 2026-01-05T00:00:00Z

class FakeSender final : public WebhookSender {
 public:
  std::optional<std::string> post_json(const std::string& url, const std::string& json) override {
    posts.emplace_back(url, json);
    if (fail) return std::string("connection refused");
    return std::nullopt;
  }
  std::vector<std::pair<std::string, std::string>> posts;
  bool fail = false;
};

Budgets day_budget(double usd_per_day) {
  Budgets b;
  b.defaults.usd_per_day = usd_per_day;
  return b;
}

std::map<std::string, NamespaceSpend, std::less<>> spent_today(const std::string& ns, Micros m) {
  std::map<std::string, NamespaceSpend, std::less<>> s;
  s[ns].spent_today = m;
  s[ns].spent_this_month = m;
  return s;
}

TEST(BudgetAlerts, EachThresholdIsPostedOncePerDay) {
  FakeSender sender;
  MemoryAlertLog log;
  BudgetAlertRecorder rec(
      day_budget(1000), BudgetAlertOptions{"http://hook", {50, 80, 100}, "lab", 300}, sender, log);

  rec.check(spent_today("research-a", 400'000'000), kDay + 100);  // 40%: nothing
  EXPECT_TRUE(sender.posts.empty());
  rec.check(spent_today("research-a", 500'000'000), kDay + 200);  // exactly 50%
  ASSERT_EQ(sender.posts.size(), 1u);
  EXPECT_EQ(sender.posts[0].first, "http://hook");
  EXPECT_EQ(
      sender.posts[0].second,
      R"({"text":"fitscale lab: namespace research-a has spent $500 of its usdPerDay budget of $1,000 (50%) for 2026-01-05 UTC"})");
  rec.check(spent_today("research-a", 600'000'000), kDay + 300);  // still between 50 and 80
  EXPECT_EQ(sender.posts.size(), 1u);
  rec.check(spent_today("research-a", 1'010'000'000), kDay + 400);  // past 80 and 100 at once
  ASSERT_EQ(sender.posts.size(), 2u);
  EXPECT_NE(sender.posts[1].second.find("(100%: new launches for it are refused)"),
            std::string::npos);
  rec.check(spent_today("research-a", 1'200'000'000), kDay + 500);
  EXPECT_EQ(sender.posts.size(), 2u);

  // A new UTC day is a new period: 50% is announced again.
  rec.check(spent_today("research-a", 550'000'000), kDay + 86400 + 10);
  EXPECT_EQ(sender.posts.size(), 3u);
  EXPECT_NE(sender.posts[2].second.find("2026-01-06"), std::string::npos);
}

TEST(BudgetAlerts, MonthlyBudgetsAlertToo) {
  FakeSender sender;
  MemoryAlertLog log;
  Budgets b;
  b.namespaces["research-a"].usd_per_month = 10'000;
  BudgetAlertRecorder rec(b, BudgetAlertOptions{"http://hook", {80}, "lab", 300}, sender, log);
  rec.check(spent_today("research-a", 8'000'000'000), kDay);
  rec.check(spent_today("research-b", 8'000'000'000), kDay);  // no cap: no alert
  ASSERT_EQ(sender.posts.size(), 1u);
  EXPECT_NE(sender.posts[0].second.find("usdPerMonth budget of $10,000 (80%) for 2026-01 UTC"),
            std::string::npos);
}

TEST(BudgetAlerts, AFailedPostIsRetriedLaterNotEveryLoop) {
  FakeSender sender;
  sender.fail = true;
  MemoryAlertLog log;
  BudgetAlertRecorder rec(day_budget(100), BudgetAlertOptions{"http://hook", {50}, "lab", 300},
                          sender, log);
  rec.check(spent_today("a", 60'000'000), kDay);
  EXPECT_EQ(sender.posts.size(), 1u);
  EXPECT_NE(rec.last_error().find("connection refused"), std::string::npos);
  rec.check(spent_today("a", 60'000'000), kDay + 10);  // backing off
  EXPECT_EQ(sender.posts.size(), 1u);
  sender.fail = false;
  rec.check(spent_today("a", 60'000'000), kDay + 300);
  EXPECT_EQ(sender.posts.size(), 2u);
  rec.check(spent_today("a", 60'000'000), kDay + 310);
  EXPECT_EQ(sender.posts.size(), 2u);  // delivered, recorded, not again
}

// Issue 12, item 5: a quiet cluster plans nothing, yet its spend grows; with a ledger, every loop
// (planned or not) reads spend from it and alerts as it crosses each threshold.
TEST(BudgetAlerts, EveryLoopReadsTheLedgerEvenWithoutAPlan) {
  FakeSender sender;
  MemoryAlertLog log;
  MemoryLedger ledger;
  NodeCharge n;
  n.node_id = "i-1";
  n.micros_per_hour = 3'600'000'000;  // $3,600/h: $1 a second
  n.owner_namespace = "quiet";
  ledger.node_started(n, kDay);
  BudgetAlertRecorder rec(
      day_budget(100), BudgetAlertOptions{"http://hook", {50, 80, 100}, "lab", 300}, sender, log);
  rec.read_spend_from(&ledger);
  std::vector<std::size_t> posted;
  for (Time t = kDay + 10; t <= kDay + 110; t += 10) {
    LoopStats stats;
    stats.at = t;
    stats.skipped = true;  // nothing changed: no plan
    rec.loop_finished(stats);
    posted.push_back(sender.posts.size());
  }
  // $50 at 50 s, $80 at 80 s, $100 at 100 s: each in the loop that first sees it.
  EXPECT_EQ(posted, (std::vector<std::size_t>{0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3}));
  EXPECT_NE(sender.posts[2].second.find("(100%"), std::string::npos);
}

// A failing hook is reported each time (the command logs and counts it) and retried with a
// doubling wait, not at every loop; nothing is sent twice once it is delivered.
TEST(BudgetAlerts, AFailingHookIsReportedAndRetriedWithBackoff) {
  FakeSender sender;
  sender.fail = true;
  MemoryAlertLog log;
  BudgetAlertRecorder rec(day_budget(100), BudgetAlertOptions{"http://hook", {50}, "lab", 10, 3600},
                          sender, log);
  std::vector<std::string> failures;
  rec.on_failure([&](const std::string& e) { failures.push_back(e); });
  std::vector<Time> tried;
  for (Time t = kDay; t <= kDay + 100; ++t) {
    const std::size_t before = sender.posts.size();
    rec.check(spent_today("a", 60'000'000), t);
    if (sender.posts.size() > before) tried.push_back(t - kDay);
  }
  EXPECT_EQ(tried, (std::vector<Time>{0, 10, 30, 70}));  // waits of 10, 20, 40 s
  ASSERT_EQ(failures.size(), 4u);
  EXPECT_EQ(failures[0], "budget alert for namespace a not delivered: connection refused");
  sender.fail = false;
  rec.check(spent_today("a", 60'000'000), kDay + 150);
  rec.check(spent_today("a", 60'000'000), kDay + 160);
  EXPECT_EQ(sender.posts.size(), 5u);
  EXPECT_EQ(rec.sent().size(), 1u);
}

TEST(BudgetAlerts, ARestartWithADurableLogDoesNotResend) {
  const std::string path =
      testing::TempDir() + "fitscale-alerts-" + std::to_string(getpid()) + ".db";
  std::remove(path.c_str());
  FakeSender sender;
  {
    SqliteLedger ledger(path);
    BudgetAlertRecorder rec(day_budget(100),
                            BudgetAlertOptions{"http://hook", {50, 80, 100}, "lab", 300}, sender,
                            ledger);
    rec.check(spent_today("a", 85'000'000), kDay + 5);
  }
  ASSERT_EQ(sender.posts.size(), 1u);
  SqliteLedger ledger(path);
  BudgetAlertRecorder rec(day_budget(100),
                          BudgetAlertOptions{"http://hook", {50, 80, 100}, "lab", 300}, sender,
                          ledger);
  rec.check(spent_today("a", 85'000'000), kDay + 50);
  EXPECT_EQ(sender.posts.size(), 1u);
  rec.check(spent_today("a", 100'000'000), kDay + 60);
  EXPECT_EQ(sender.posts.size(), 2u);
}

}  // namespace
}  // namespace fitscale
