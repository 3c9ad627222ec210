#pragma once
// Spend that survives a restart or a leader handover (issue 12): a ledger that adds to another
// ledger's spend each namespace's opening balance for the current UTC day and month, as the
// last leader recorded it in the namespace's Budget status.
//
// The opening balance is what the record holds that the ledger does not count itself. A fresh
// in-memory ledger re-meters every instance still running from its launch (the controller adopts
// them), so adding the whole record would count those twice; a SQLite ledger that survived counts
// everything already. So the balance is settled once, at the first spend() after carry_from()
// (the controller calls it after metering the cloud's instances), per namespace and period, as
//
//   carried = max(0, recorded + committed $/h × (now − recorded_at) − ledger's own spend)
//
// The middle term is what ran between the record and now (the leader was down) and is counted
// by the ledger's re-metered nodes as well; the max keeps the larger of the record and the
// ledger when the ledger knows more. It errs towards counting too much, never too little: a node
// one namespace used on another's launch is re-metered as the launcher's until pods are seen.
#include <map>
#include <string>

#include "cost/ledger.h"

namespace fitscale {

struct RecordedSpend {
  Time day_start = 0;    // UTC midnight of the day `spent_today` is for
  Time month_start = 0;  // the first of the month `spent_this_month` is for
  Micros spent_today = 0;
  Micros spent_this_month = 0;
  Micros committed_micros_per_hour = 0;
  Time recorded_at = 0;  // running nodes were metered up to here
};

class CarriedSpendLedger final : public Ledger {
 public:
  explicit CarriedSpendLedger(Ledger& inner) : inner_(inner) {}

  // A new term starts from these records (by namespace), replacing any carried before.
  void carry_from(std::map<std::string, RecordedSpend, std::less<>> recorded);

  void node_started(const NodeCharge& node, Time t) override { inner_.node_started(node, t); }
  void node_stopped(const std::string& node_id, Time t) override {
    inner_.node_stopped(node_id, t);
  }
  void pods_changed(const std::string& node_id, const std::vector<PodUsage>& pods,
                    Time t) override {
    inner_.pods_changed(node_id, pods, t);
  }
  // The inner ledger's spend plus what is carried for the period `now` is in.
  std::map<std::string, NamespaceSpend, std::less<>> spend(Time now) const override;
  std::map<std::string, Micros, std::less<>> spent_to_date(Time now) const override {
    return inner_.spent_to_date(now);
  }
  std::vector<std::string> open_nodes() const override { return inner_.open_nodes(); }

  struct Carried {
    Time day_start = 0;
    Time month_start = 0;
    Micros today = 0;
    Micros this_month = 0;
  };
  // What is carried per namespace (settled; empty before the first spend()).
  const std::map<std::string, Carried, std::less<>>& carried() const { return carried_; }

 private:
  void settle(const std::map<std::string, NamespaceSpend, std::less<>>& own, Time now) const;

  Ledger& inner_;
  // Settled lazily in the const spend(): the first call after carry_from() is the one that sees
  // the adopted instances.
  mutable std::map<std::string, RecordedSpend, std::less<>> pending_;
  mutable bool settle_pending_ = false;
  mutable std::map<std::string, Carried, std::less<>> carried_;
};

}  // namespace fitscale
