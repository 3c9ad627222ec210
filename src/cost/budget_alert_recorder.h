#pragma once
// Budget alerts (issues 4 and 12): at every loop (with a ledger to read, also the loops that do
// not plan: a quiet cluster's spend still grows), each namespace's spend today and this month is
// compared with its usdPerDay and usdPerMonth; crossing a threshold (50%, 80%, 100% by default)
// posts one Slack-compatible webhook {"text": "..."} and records it in the AlertLog, so a
// threshold of a period is announced once, also across restarts with a durable log. A failed
// post is reported to `on_failure` (the command logs and counts it) and retried with backoff.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cost/alert_log.h"
#include "cost/webhook_sender.h"
#include "model/budget.h"
#include "obs/recorder.h"

namespace fitscale {

struct BudgetAlertOptions {
  std::string webhook_url;
  std::vector<int> thresholds = {50, 80, 100};  // percent, ascending
  std::string cluster_name = "fitscale";        // named in the message: one hook, many clusters
  Seconds retry_after_s = 300;                  // after a failed post, wait before trying again
  Seconds max_retry_after_s = 3600;             // doubling after each failure in a row, up to this
};

class Ledger;

class BudgetAlertRecorder final : public Recorder {
 public:
  BudgetAlertRecorder(Budgets budgets, BudgetAlertOptions options, WebhookSender& sender,
                      AlertLog& log);

  // Budget objects change while fitscale runs (docs/budgets.md, "Budget objects").
  void set_budgets(Budgets budgets) { budgets_ = std::move(budgets); }
  // With a ledger, spend is read from it at the end of every loop, planned or not; without one,
  // from each plan's snapshot.
  void read_spend_from(const Ledger* ledger) { ledger_ = ledger; }
  // Called with the error of every failed post (after last_error() is set).
  void on_failure(std::function<void(const std::string&)> f) { on_failure_ = std::move(f); }

  // A job past its worst case (ActionKind::MaxRuntimeExceeded, said once per job and period
  // by the controller) is posted too, "fitscale CLUSTER: job ... has run ..."
  // (max_runtime_alerts.cpp); one that fails is retried with the same backoff.
  void action(const ActionRecord& record) override;
  void planned(const Snapshot& snapshot, const Plan& plan, const LoopStats& stats) override;
  void loop_finished(const LoopStats& stats) override;

  // The check planned() runs, for callers without a Snapshot.
  void check(const std::map<std::string, NamespaceSpend, std::less<>>& spend, Time now);
  // Texts posted so far by this recorder, and the last failure (empty when none).
  const std::vector<std::string>& sent() const { return sent_; }
  const std::string& last_error() const { return last_error_; }

 private:
  // A post failed: remember why, tell on_failure, and wait before the next try.
  void back_off(std::string error, Time now);
  // Posts the overrun messages not yet delivered; false when the hook failed (retry later).
  bool post_overruns(Time now);
  void check_period(const std::string& ns, const char* period, const char* cap_name,
                    Time period_start, Micros spent, std::optional<double> cap_usd, Time now);

  Budgets budgets_;
  BudgetAlertOptions options_;
  WebhookSender& sender_;
  AlertLog& log_;
  const Ledger* ledger_ = nullptr;
  std::function<void(const std::string&)> on_failure_;
  std::optional<Time> retry_at_;
  int failures_in_a_row_ = 0;
  std::vector<std::string> sent_;
  std::string last_error_;
  std::vector<std::pair<std::string, std::string>> unsent_overruns_;  // (namespace, text)
  Time last_seen_ = 0;  // the last loop's time: when an action happens
};

// The message for a crossing, e.g. "fitscale lab: namespace research-a has spent $2,412.50 of
// its usdPerDay budget of $3,000 (80%) for 2026-01-05 UTC".
std::string budget_alert_text(const std::string& cluster, const std::string& ns,
                              const char* cap_name, Micros spent, Micros cap, int threshold,
                              Time period_start, const char* period);

}  // namespace fitscale
