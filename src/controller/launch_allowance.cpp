#include "controller/launch_allowance.h"

#include <algorithm>

namespace fitscale {

LaunchAllowance::LaunchAllowance(const Budgets& budgets,
                                 const std::map<std::string, NamespaceSpend, std::less<>>& spend)
    : budgets_(budgets), spend_(spend) {
  for (const auto& [ns, s] : spend_) cluster_committed_ += s.committed_micros_per_hour;
}

std::optional<Micros> LaunchAllowance::remaining(const std::string& ns) const {
  std::optional<Micros> out;
  auto tighter = [&](Micros left) { out = std::max<Micros>(0, out ? std::min(*out, left) : left); };
  if (const auto cap = budgets_.for_namespace(ns).usd_per_hour) {
    Micros committed = 0;
    if (auto it = spend_.find(ns); it != spend_.end())
      committed = it->second.committed_micros_per_hour;
    Micros launched = 0;
    if (auto it = launched_.find(ns); it != launched_.end()) launched = it->second;
    tighter(dollars_to_micros(*cap) - committed - launched);
  }
  if (const auto cap = budgets_.cluster.usd_per_hour) {
    tighter(dollars_to_micros(*cap) - cluster_committed_ - cluster_launched_);
  }
  return out;
}

void LaunchAllowance::charge(const std::string& ns, Micros micros_per_hour) {
  launched_[ns] += micros_per_hour;
  cluster_launched_ += micros_per_hour;
}

}  // namespace fitscale
