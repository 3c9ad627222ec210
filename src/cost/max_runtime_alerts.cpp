// Budget alerts for jobs past their worst case (issue 12, maxRuntimeAction): the controller
// says each once per job and period; here it goes to the same webhook as the spend alerts,
// with the same retry and backoff when the hook fails.
#include <nlohmann/json.hpp>

#include "cost/budget_alert_recorder.h"

namespace fitscale {

void BudgetAlertRecorder::action(const ActionRecord& record) {
  if (record.kind != ActionKind::MaxRuntimeExceeded || options_.webhook_url.empty()) return;
  if (record.fields.count("dry_run") != 0) return;
  auto ns = record.fields.find("namespace");
  unsent_overruns_.emplace_back(ns == record.fields.end() ? "" : ns->second,
                                "fitscale " + options_.cluster_name + ": " + record.reason);
  post_overruns(last_seen_);
}

bool BudgetAlertRecorder::post_overruns(Time now) {
  if (retry_at_ && now < *retry_at_) return false;
  std::size_t sent = 0;
  for (; sent < unsent_overruns_.size(); ++sent) {
    const auto& [ns, text] = unsent_overruns_[sent];
    if (auto error =
            sender_.post_json(options_.webhook_url, nlohmann::json{{"text", text}}.dump())) {
      back_off("max-runtime alert for namespace " + ns + " not delivered: " + *error, now);
      break;
    }
    retry_at_.reset();
    failures_in_a_row_ = 0;
    sent_.push_back(text);
  }
  unsent_overruns_.erase(unsent_overruns_.begin(),
                         unsent_overruns_.begin() + static_cast<std::ptrdiff_t>(sent));
  return unsent_overruns_.empty();
}

}  // namespace fitscale
