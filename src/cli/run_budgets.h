#pragma once
// What `fitscale run` does with Budget objects (docs/budgets.md, "Budget objects"), kept out of
// run_command.cpp: the store that watches them, the ledger and alert log that carry the spend
// and alerts recorded in their status into a new leadership term, and the status written after
// every loop. Problems with an object are logged once, naming it; the others still apply.
#include <memory>
#include <string>

#include "controller/budget_sync.h"
#include "cost/alert_log.h"
#include "cost/carried_alert_log.h"
#include "cost/carried_spend_ledger.h"
#include "cost/ledger.h"
#include "kube/kube_budget_store.h"
#include "kube/kubeconfig.h"
#include "model/config.h"
#include "obs/logger.h"

namespace fitscale::cli {

class RunBudgets {
 public:
  // `ledger` is the run's own (SQLite or in memory); `own_ns` holds the `cluster` and `default`
  // Budgets.
  RunBudgets(const KubeConfig& kube, const obs::Logger& log, const Config& config,
             std::unique_ptr<Ledger> ledger, const std::string& own_ns);
  ~RunBudgets();

  // The ledger the controller and the alerts read: the run's with the carried spend on top.
  Ledger& ledger() { return carried_ledger_; }
  // The alert log the alert recorder writes: the SQLite ledger's (or one in memory) and the
  // alerts recorded in the objects' status.
  AlertLog& alert_log() { return *carried_alerts_; }

  // Warning Events on Budget objects that cannot be used as written go through `view` (its
  // write gate: only the leader writes them).
  void events_to(ClusterView& view) {
    sync_.on_event(
        [&view](const ObjectRef& about, const std::string& reason, const std::string& message) {
          view.record_event(about, "Warning", reason, message);
        });
  }
  void start() { store_.start(); }
  void stop() { store_.stop(); }
  // The objects were read once (or the CRD is not installed): a new leader may start.
  bool ready() const { return sync_.ready(); }
  // A new leadership term: carries the objects' status into the ledger and the alert log.
  void start_term() { sync_.start_term(); }
  // The budgets that apply now (file's, objects' levels on top); `changed` when they moved.
  const Budgets& budgets(bool& changed) { return sync_.budgets(changed); }
  const Budgets& current() { return sync_.current(); }
  // After every loop the leader ran: the namespaces' Budget status.
  void after_loop(Time now) { sync_.write_statuses(now); }

 private:
  std::unique_ptr<Ledger> own_ledger_;
  std::unique_ptr<AlertLog> own_alerts_;  // when the ledger keeps none (in memory)
  CarriedSpendLedger carried_ledger_;
  std::unique_ptr<CarriedAlertLog> carried_alerts_;
  KubeBudgetStore store_;
  BudgetSync sync_;
};

}  // namespace fitscale::cli
