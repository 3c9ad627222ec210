#pragma once
// Which budget alerts were already sent, so each threshold of each period is posted once, also
// across restarts when the log is durable (SqliteLedger implements it in the ledger file).
#include <set>
#include <string>
#include <tuple>

#include "model/time.h"

namespace fitscale {

struct AlertKey {
  std::string ns;
  std::string period;  // "day" or "month"
  Time period_start = 0;
  int threshold = 0;  // percent
  auto operator<=>(const AlertKey&) const =
      default;  // NOLINT(modernize-use-nullptr): clang-tidy 14 misreads the defaulted <=>
};

class AlertLog {
 public:
  virtual ~AlertLog() = default;
  virtual bool was_sent(const AlertKey& key) const = 0;
  virtual void record_sent(const AlertKey& key, Time at, const std::string& text) = 0;
};

class MemoryAlertLog final : public AlertLog {
 public:
  bool was_sent(const AlertKey& key) const override { return sent_.count(key) != 0; }
  void record_sent(const AlertKey& key, Time, const std::string&) override { sent_.insert(key); }

 private:
  std::set<AlertKey> sent_;
};

}  // namespace fitscale
