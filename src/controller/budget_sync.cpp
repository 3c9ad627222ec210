#include "controller/budget_sync.h"

#include "model/error.h"

namespace fitscale {

namespace {

Time parse_period(const std::string& name, const char* suffix) {
  try {
    return parse_rfc3339(name + suffix);
  } catch (const InputError&) {
    return -1;  // never the current period: carries nothing
  }
}

}  // namespace

BudgetSync::BudgetSync(BudgetStore& store, Budgets base, CarriedSpendLedger& ledger,
                       CarriedAlertLog* alerts)
    : store_(store), base_(std::move(base)), ledger_(ledger), alerts_(alerts) {}

void BudgetSync::problem(const std::string& object, const std::string& error) {
  if (!reported_.emplace(object, error).second) return;
  if (on_problem_) on_problem_(object, error);
}

void BudgetSync::invalid(const std::string& key, const std::string& uid, const std::string& error) {
  problem("Budget " + key, error);
  invalid_.push_back({key, uid, error});
}

void BudgetSync::send_events() {
  if (!on_event_) return;
  for (const Invalid& i : invalid_) {
    if (!evented_.emplace(i.key, i.error).second) continue;
    const auto slash = i.key.find('/');
    ObjectRef about;
    about.kind = "Budget";
    about.api_version = "fitscale.io/v1alpha1";
    about.ns = slash == std::string::npos ? "" : i.key.substr(0, slash);
    about.name = slash == std::string::npos ? i.key : i.key.substr(slash + 1);
    about.uid = i.uid;
    // The reader's errors name the object already ("Budget ns/name: spec.usdPerDay: ..."): on
    // the object's own event that prefix says nothing.
    const std::string prefix = "Budget " + i.key + ": ";
    const std::string what =
        i.error.rfind(prefix, 0) == 0 ? i.error.substr(prefix.size()) : i.error;
    on_event_(about, "InvalidBudget",
              what + "; the other Budgets and the config file's budgets still apply");
  }
}

void BudgetSync::refresh() {
  const std::uint64_t g = store_.generation();
  if (have_generation_ && g == generation_) return;
  have_generation_ = true;
  generation_ = g;
  objects_ = store_.objects();
  MergedBudgets merged = merge_budget_objects(base_, objects_);
  invalid_.clear();
  for (const auto& b : store_.bad_objects()) invalid(b.key, b.uid, b.error);
  for (const auto& p : merged.problems) {
    std::string uid;
    for (const auto& o : objects_) {
      if (o.key() == p.key) uid = o.uid;
    }
    invalid(p.key, uid, p.error);
  }
  for (const auto& o : objects_) {
    if (!o.status_problem.empty()) {
      invalid(o.key(), o.uid,
              "status set aside (" + o.status_problem +
                  "): the namespace's spend starts from this leader's ledger");
    }
  }
  // namespace_objects point into objects_: kept together.
  changed_ = changed_ || merged.budgets.namespaces != merged_.budgets.namespaces ||
             merged.budgets.defaults != merged_.budgets.defaults ||
             merged.budgets.cluster != merged_.budgets.cluster;
  merged_ = std::move(merged);
}

const Budgets& BudgetSync::budgets(bool& changed) {
  refresh();
  changed = changed_;
  changed_ = false;
  return merged_.budgets;
}

void BudgetSync::start_term() {
  refresh();
  evented_.clear();  // a new leader tells again (Kubernetes aggregates the repeat)
  std::map<std::string, RecordedSpend, std::less<>> recorded;
  for (const BudgetObject* o : merged_.namespace_objects) {
    if (!o->status) continue;
    const BudgetStatus& s = *o->status;
    RecordedSpend r;
    r.day_start = parse_period(s.day, "T00:00:00Z");
    r.month_start = parse_period(s.month, "-01T00:00:00Z");
    r.spent_today = s.spent_today;
    r.spent_this_month = s.spent_this_month;
    r.committed_micros_per_hour = s.committed_micros_per_hour;
    r.recorded_at = s.updated_at;
    recorded.emplace(o->ns, r);
    if (alerts_ != nullptr) {
      for (const auto& entry : s.alerts_sent) {
        if (auto key = parse_alert_status_entry(o->ns, entry)) alerts_->carry(*key);
      }
    }
    written_[o->uid] = s;
  }
  ledger_.carry_from(std::move(recorded));
}

BudgetStatus BudgetSync::status_for(const std::string& ns, const NamespaceSpend& spend,
                                    Time now) const {
  BudgetStatus s;
  s.day = utc_day_name(now);
  s.month = utc_month_name(now);
  s.spent_today = spend.spent_today;
  s.spent_this_month = spend.spent_this_month;
  s.committed_micros_per_hour = spend.committed_micros_per_hour;
  if (alerts_ != nullptr) {
    for (const auto& k : alerts_->sent_for(ns, utc_day_start(now), utc_month_start(now)))
      s.alerts_sent.push_back(alert_status_entry(k));
  }
  s.updated_at = now;
  return s;
}

void BudgetSync::write_statuses(Time now) {
  refresh();
  send_events();
  if (merged_.namespace_objects.empty()) return;
  const auto spend = ledger_.spend(now);
  for (const BudgetObject* o : merged_.namespace_objects) {
    const auto it = spend.find(o->ns);
    BudgetStatus s = status_for(o->ns, it == spend.end() ? NamespaceSpend{} : it->second, now);
    auto& last = written_[o->uid];
    BudgetStatus same_time = last;
    same_time.updated_at = now;
    if (same_time == s) continue;  // nothing but the time moved
    const std::string error = store_.write_status(*o, s);
    if (!error.empty()) {
      problem("Budget " + o->key(), "status not written (retried next loop): " + error);
      continue;
    }
    last = std::move(s);
  }
}

}  // namespace fitscale
