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

void BudgetSync::refresh() {
  const std::uint64_t g = store_.generation();
  if (have_generation_ && g == generation_) return;
  have_generation_ = true;
  generation_ = g;
  objects_ = store_.objects();
  MergedBudgets merged = merge_budget_objects(base_, objects_);
  for (const auto& b : store_.bad_objects()) problem("Budget " + b.key, b.error);
  for (const auto& p : merged.problems) problem("Budget " + p.key, p.error);
  for (const auto& o : objects_) {
    if (!o.status_problem.empty()) {
      problem("Budget " + o.key(), "status set aside (" + o.status_problem +
                                       "): the namespace's spend starts from this leader's "
                                       "ledger");
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
