#include "cost/carried_spend_ledger.h"

#include <algorithm>

namespace fitscale {

void CarriedSpendLedger::carry_from(std::map<std::string, RecordedSpend, std::less<>> recorded) {
  pending_ = std::move(recorded);
  settle_pending_ = true;
  carried_.clear();
}

void CarriedSpendLedger::settle(const std::map<std::string, NamespaceSpend, std::less<>>& own,
                                Time now) const {
  settle_pending_ = false;
  carried_.clear();
  const Time day = utc_day_start(now);
  const Time month = utc_month_start(now);
  for (const auto& [ns, r] : pending_) {
    const auto it = own.find(ns);
    const NamespaceSpend mine = it == own.end() ? NamespaceSpend{} : it->second;
    // What ran between the record and now, at the rate committed then (within the period: a
    // record of another day or month carries nothing for it).
    const Time from = std::max(r.recorded_at, day);
    const Micros gap_today =
        now > from ? cost_for(r.committed_micros_per_hour, now - from) : Micros{0};
    const Time from_m = std::max(r.recorded_at, month);
    const Micros gap_month =
        now > from_m ? cost_for(r.committed_micros_per_hour, now - from_m) : Micros{0};
    Carried c;
    c.day_start = day;
    c.month_start = month;
    if (r.day_start == day)
      c.today = std::max<Micros>(0, r.spent_today + gap_today - mine.spent_today);
    if (r.month_start == month) {
      c.this_month = std::max<Micros>(0, r.spent_this_month + gap_month - mine.spent_this_month);
    }
    if (c.today > 0 || c.this_month > 0) carried_.emplace(ns, c);
  }
  pending_.clear();
}

std::map<std::string, NamespaceSpend, std::less<>> CarriedSpendLedger::spend(Time now) const {
  auto out = inner_.spend(now);
  if (settle_pending_) settle(out, now);
  for (const auto& [ns, c] : carried_) {
    NamespaceSpend& s = out[ns];
    if (c.day_start == utc_day_start(now)) s.spent_today += c.today;
    if (c.month_start == utc_month_start(now)) s.spent_this_month += c.this_month;
  }
  return out;
}

}  // namespace fitscale
