#pragma once
// What the budgets' $/h caps still allow a launch to add: the tighter of its namespace's
// usdPerHour and the cluster's usdPerHour, less what is committed (running and in-flight, from
// the ledger) and less what this loop already launched. Passed to the cloud with every launch
// (LaunchRequest::max_total_micros_per_hour) as a ceiling it enforces itself; admission decides
// what to launch, this only bounds the damage if admission is wrong.
#include <map>
#include <optional>
#include <string>

#include "model/budget.h"
#include "model/money.h"

namespace fitscale {

class LaunchAllowance {
 public:
  LaunchAllowance(const Budgets& budgets,
                  const std::map<std::string, NamespaceSpend, std::less<>>& spend);
  // nullopt when neither cap applies to `ns`; never negative.
  std::optional<Micros> remaining(const std::string& ns) const;
  // Counts a launch of `micros_per_hour` against both caps for the rest of the loop.
  void charge(const std::string& ns, Micros micros_per_hour);

 private:
  const Budgets& budgets_;
  const std::map<std::string, NamespaceSpend, std::less<>>& spend_;
  Micros cluster_committed_ = 0;
  std::map<std::string, Micros, std::less<>> launched_;
  Micros cluster_launched_ = 0;
};

}  // namespace fitscale
