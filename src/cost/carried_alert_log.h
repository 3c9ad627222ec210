#pragma once
// Alerts already sent, across restarts and leader handovers (issue 12): the log of another
// AlertLog (a SqliteLedger's, or one in memory) plus what the last leader recorded in the
// Budget objects' status. A threshold of a period found in either is not posted again.
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cost/alert_log.h"

namespace fitscale {

class CarriedAlertLog final : public AlertLog {
 public:
  explicit CarriedAlertLog(AlertLog& inner) : inner_(inner) {}

  // Recorded elsewhere (a Budget's status): counts as sent.
  void carry(const AlertKey& key) { known_.insert(key); }

  bool was_sent(const AlertKey& key) const override {
    return known_.count(key) != 0 || inner_.was_sent(key);
  }
  void record_sent(const AlertKey& key, Time at, const std::string& text) override {
    inner_.record_sent(key, at, text);
    known_.insert(key);
  }

  // What a Budget's status lists for `ns`: the alerts of the day and month given, oldest
  // threshold first.
  std::vector<AlertKey> sent_for(std::string_view ns, Time day_start, Time month_start) const;

 private:
  AlertLog& inner_;
  std::set<AlertKey> known_;
};

// A status entry: "day/2026-12-01/80", "month/2026-12/100" (the namespace is the Budget's).
std::string alert_status_entry(const AlertKey& key);
// nullopt for an entry this build does not read (it is then ignored, not fatal).
std::optional<AlertKey> parse_alert_status_entry(std::string ns, std::string_view entry);

}  // namespace fitscale
