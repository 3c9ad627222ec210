#include "cost/budget_alert_recorder.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cost/ledger.h"
#include "planner/plan.h"

namespace fitscale {

BudgetAlertRecorder::BudgetAlertRecorder(Budgets budgets, BudgetAlertOptions options,
                                         WebhookSender& sender, AlertLog& log)
    : budgets_(std::move(budgets)), options_(std::move(options)), sender_(sender), log_(log) {}

void BudgetAlertRecorder::planned(const Snapshot& snapshot, const Plan&, const LoopStats& stats) {
  if (ledger_ == nullptr) check(snapshot.spend, stats.at);
}

void BudgetAlertRecorder::loop_finished(const LoopStats& stats) {
  last_seen_ = stats.at;
  if (!unsent_overruns_.empty() && !post_overruns(stats.at)) return;
  if (ledger_ == nullptr || options_.webhook_url.empty() || options_.thresholds.empty()) return;
  if (retry_at_ && stats.at < *retry_at_) return;  // not even the ledger's spend() is needed
  check(ledger_->spend(stats.at), stats.at);
}

void BudgetAlertRecorder::check(const std::map<std::string, NamespaceSpend, std::less<>>& spend,
                                Time now) {
  if (options_.webhook_url.empty() || options_.thresholds.empty()) return;
  if (retry_at_ && now < *retry_at_) return;
  retry_at_.reset();
  for (const auto& [ns, s] : spend) {
    const NamespaceBudget b = budgets_.for_namespace(ns);
    check_period(ns, "day", "usdPerDay", utc_day_start(now), s.spent_today, b.usd_per_day, now);
    if (retry_at_) return;
    check_period(ns, "month", "usdPerMonth", utc_month_start(now), s.spent_this_month,
                 b.usd_per_month, now);
    if (retry_at_) return;
  }
}

void BudgetAlertRecorder::check_period(const std::string& ns, const char* period,
                                       const char* cap_name, Time period_start, Micros spent,
                                       std::optional<double> cap_usd, Time now) {
  if (!cap_usd || spent <= 0) return;
  const Micros cap = dollars_to_micros(*cap_usd);
  // Thresholds crossed and not yet announced this period; integer percent arithmetic so that
  // exactly 80% counts as crossing 80%.
  std::vector<int> crossed;
  for (int t : options_.thresholds) {
    if (static_cast<__int128>(spent) * 100 < static_cast<__int128>(cap) * t) continue;
    if (!log_.was_sent(AlertKey{ns, period, period_start, t})) crossed.push_back(t);
  }
  if (crossed.empty()) return;
  // Several thresholds at once (a big job, or a restart): one message, for the highest.
  const int highest = crossed.back();
  const std::string text = budget_alert_text(options_.cluster_name, ns, cap_name, spent, cap,
                                             highest, period_start, period);
  const std::string body = nlohmann::json{{"text", text}}.dump();
  if (auto error = sender_.post_json(options_.webhook_url, body)) {
    back_off("budget alert for namespace " + ns + " not delivered: " + *error, now);
    return;
  }
  failures_in_a_row_ = 0;
  for (int t : crossed) log_.record_sent(AlertKey{ns, period, period_start, t}, now, text);
  sent_.push_back(text);
}

void BudgetAlertRecorder::back_off(std::string error, Time now) {
  last_error_ = std::move(error);
  // Backoff: a hook that is down for long is not hammered, one that blinked is retried soon.
  Seconds wait = options_.retry_after_s;
  for (int i = 0; i < failures_in_a_row_ && wait < options_.max_retry_after_s; ++i) wait *= 2;
  wait = std::min(wait, std::max(options_.retry_after_s, options_.max_retry_after_s));
  ++failures_in_a_row_;
  retry_at_ = now + wait;
  if (on_failure_) on_failure_(last_error_);
}

std::string budget_alert_text(const std::string& cluster, const std::string& ns,
                              const char* cap_name, Micros spent, Micros cap, int threshold,
                              Time period_start, const char* period) {
  const std::string when =
      format_rfc3339(period_start).substr(0, std::string(period) == "day" ? 10 : 7);
  return "fitscale " + cluster + ": namespace " + ns + " has spent " + format_usd_micros(spent) +
         " of its " + cap_name + " budget of " + format_usd_micros(cap) + " (" +
         std::to_string(threshold) + "%" +
         (threshold >= 100 ? ": new launches for it are refused" : "") + ") for " + when + " UTC";
}

}  // namespace fitscale
