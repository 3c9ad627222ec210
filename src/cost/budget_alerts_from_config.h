#pragma once
// What the config's `alerts:` section asks for, assembled for a command to add to the
// controller's recorders: a libcurl sender, the log of sent alerts (the SQLite ledger's when
// there is one, so a restart does not repeat them) and the recorder itself.
#include <memory>

#include "cost/alert_log.h"
#include "cost/budget_alert_recorder.h"
#include "cost/webhook_sender.h"
#include "model/config.h"

namespace fitscale {

struct BudgetAlerts {
  std::unique_ptr<WebhookSender> sender;
  std::unique_ptr<AlertLog> own_log;              // used when no durable log was given
  std::unique_ptr<BudgetAlertRecorder> recorder;  // null when alerts.webhook is not set
};

// `durable_log` may be null (e.g. a MemoryLedger run); pass the SqliteLedger when there is one.
BudgetAlerts make_budget_alerts(const Config& config, AlertLog* durable_log);

}  // namespace fitscale
