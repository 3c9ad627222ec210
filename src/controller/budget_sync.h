#pragma once
// Budget objects for `fitscale run` (issue 12, "spend that survives"): which budgets apply (the
// config file's with the objects' levels on top), what a new leader starts from (the spend and
// alerts recorded in the objects' status), and the status the leader writes after every loop.
// All I/O goes through the BudgetStore; time comes from the caller.
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "controller/interfaces.h"
#include "cost/carried_alert_log.h"
#include "cost/carried_spend_ledger.h"
#include "model/budget_object.h"

namespace fitscale {

class BudgetSync {
 public:
  // `alerts` may be null (no alerts.webhook): statuses then list no alerts.
  BudgetSync(BudgetStore& store, Budgets base, CarriedSpendLedger& ledger, CarriedAlertLog* alerts);

  // Told once per object and error: a Budget that cannot be read or is not used, a status set
  // aside, a status write that failed.
  void on_problem(std::function<void(const std::string& object, const std::string& error)> f) {
    on_problem_ = std::move(f);
  }

  // A Budget that cannot be used as written (a field of the wrong type, a negative cap, an
  // unknown field, a key its level may not set, a second Budget in a namespace, a status set
  // aside) also gets a Warning Event on the object itself, where `kubectl describe budget`
  // shows it: `reason` InvalidBudget, the message names the field. Told by write_statuses(),
  // which only the leader calls, once per object and message in each leadership term.
  using EventSink = std::function<void(const ObjectRef& about, const std::string& reason,
                                       const std::string& message)>;
  void on_event(EventSink f) { on_event_ = std::move(f); }

  bool ready() const { return store_.synced(); }
  // The budgets that apply now. Sets `changed` when they differ from the last call's.
  const Budgets& budgets(bool& changed);
  // The same budgets, leaving the change flag to budgets()' caller (the leader's loop): what the
  // budget gate's webhook, served by every replica, decides with.
  const Budgets& current() {
    refresh();
    return merged_.budgets;
  }

  // A new leadership term: the spend and alerts in the objects' status are carried into the
  // ledger and the alert log.
  void start_term();
  // The status of every namespace's Budget, written where it changed.
  void write_statuses(Time now);

  // What the status of a namespace's Budget holds at `now` (exposed for tests).
  BudgetStatus status_for(const std::string& ns, const NamespaceSpend& spend, Time now) const;

 private:
  void refresh();
  void problem(const std::string& object, const std::string& error);
  // A problem with one object as written: logged (problem()) and kept for its event.
  void invalid(const std::string& key, const std::string& uid, const std::string& error);
  void send_events();

  BudgetStore& store_;
  Budgets base_;
  CarriedSpendLedger& ledger_;
  CarriedAlertLog* alerts_;
  std::function<void(const std::string&, const std::string&)> on_problem_;
  EventSink on_event_;
  struct Invalid {
    std::string key, uid, error;
  };
  std::vector<Invalid> invalid_;                           // as of the last refresh
  std::set<std::pair<std::string, std::string>> evented_;  // (key, error), this term
  bool have_generation_ = false;
  std::uint64_t generation_ = 0;
  std::vector<BudgetObject> objects_;
  MergedBudgets merged_;
  bool changed_ = true;
  std::set<std::pair<std::string, std::string>> reported_;  // (object, error)
  std::map<std::string, BudgetStatus> written_;             // uid -> last status written
};

}  // namespace fitscale
