#include "cost/budget_alerts_from_config.h"

namespace fitscale {

BudgetAlerts make_budget_alerts(const Config& config, AlertLog* durable_log) {
  BudgetAlerts a;
  if (config.alerts.webhook.empty()) return a;
  a.sender = std::make_unique<CurlWebhookSender>();
  AlertLog* log = durable_log;
  if (log == nullptr) {
    a.own_log = std::make_unique<MemoryAlertLog>();
    log = a.own_log.get();
  }
  BudgetAlertOptions options;
  options.webhook_url = config.alerts.webhook;
  options.thresholds = config.alerts.thresholds;
  options.cluster_name = config.cluster_name;
  a.recorder =
      std::make_unique<BudgetAlertRecorder>(budgets_or_defaults(config), options, *a.sender, *log);
  return a;
}

}  // namespace fitscale
