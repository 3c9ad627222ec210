#include "cli/run_budgets.h"

namespace fitscale::cli {

namespace {

AlertLog& alert_log_of(Ledger& ledger, std::unique_ptr<AlertLog>& own) {
  // A SQLite ledger keeps the alerts sent in its file; an in-memory one does not.
  if (auto* durable = dynamic_cast<AlertLog*>(&ledger)) return *durable;
  own = std::make_unique<MemoryAlertLog>();
  return *own;
}

}  // namespace

RunBudgets::RunBudgets(const KubeConfig& kube, const obs::Logger& log, const Config& config,
                       std::unique_ptr<Ledger> ledger, const std::string& own_ns)
    : own_ledger_(std::move(ledger)),
      carried_ledger_(*own_ledger_),
      carried_alerts_(std::make_unique<CarriedAlertLog>(alert_log_of(*own_ledger_, own_alerts_))),
      store_(kube, log, own_ns),
      sync_(store_, budgets_or_defaults(config), carried_ledger_, carried_alerts_.get()) {
  sync_.on_problem([&log](const std::string& object, const std::string& error) {
    log.warn("Budget object problem", {{"object", object}, {"error", error}});
  });
}

RunBudgets::~RunBudgets() { store_.stop(); }

}  // namespace fitscale::cli
