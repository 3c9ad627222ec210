// A job past its worst case goes to the budget alert webhook once (the controller says it once
// per job and period), and a failed post is retried with backoff, not dropped.
#include <gtest/gtest.h>

#include "cost/budget_alert_recorder.h"

namespace fitscale {
namespace {

constexpr Time kDay = 1767571200;  // 2026-01-05T00:00:00Z

class Sender final : public WebhookSender {
 public:
  std::optional<std::string> post_json(const std::string&, const std::string& json) override {
    posts.push_back(json);
    if (fail) return std::string("connection refused");
    return std::nullopt;
  }
  std::vector<std::string> posts;
  bool fail = false;
};

ActionRecord overrun(bool dry_run = false) {
  ActionRecord r{ActionKind::MaxRuntimeExceeded,
                 "team-a/train",
                 "job team-a/train has run 10m, past its worst case of 10m",
                 {{"namespace", "team-a"}, {"action", "alert"}}};
  if (dry_run) r.fields["dry_run"] = "true";
  return r;
}

LoopStats at(Time t) {
  LoopStats s;
  s.at = t;
  return s;
}

TEST(MaxRuntimeAlerts, PostedToTheBudgetWebhook) {
  Sender sender;
  MemoryAlertLog log;
  BudgetAlertRecorder rec(Budgets{}, BudgetAlertOptions{"http://hook", {50}, "lab", 300}, sender,
                          log);
  rec.loop_finished(at(kDay));
  rec.action(overrun());
  ASSERT_EQ(sender.posts.size(), 1u);
  EXPECT_EQ(sender.posts[0],
            R"({"text":"fitscale lab: job team-a/train has run 10m, past its worst case of 10m"})");
  rec.loop_finished(at(kDay + 10));
  EXPECT_EQ(sender.posts.size(), 1u);
  rec.action(overrun(true));  // a dry run's is only logged
  EXPECT_EQ(sender.posts.size(), 1u);
}

TEST(MaxRuntimeAlerts, AFailedPostIsRetriedAfterTheBackoff) {
  Sender sender;
  MemoryAlertLog log;
  std::vector<std::string> failures;
  BudgetAlertRecorder rec(Budgets{}, BudgetAlertOptions{"http://hook", {50}, "lab", 300}, sender,
                          log);
  rec.on_failure([&](const std::string& e) { failures.push_back(e); });
  rec.loop_finished(at(kDay));
  sender.fail = true;
  rec.action(overrun());
  ASSERT_EQ(sender.posts.size(), 1u);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("connection refused"), std::string::npos);
  sender.fail = false;
  rec.loop_finished(at(kDay + 100));  // within the backoff: not yet
  EXPECT_EQ(sender.posts.size(), 1u);
  rec.loop_finished(at(kDay + 300));
  ASSERT_EQ(sender.posts.size(), 2u);
  EXPECT_EQ(sender.posts[1], sender.posts[0]);
  rec.loop_finished(at(kDay + 600));
  EXPECT_EQ(sender.posts.size(), 2u);
}

}  // namespace
}  // namespace fitscale
