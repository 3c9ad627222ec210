#include "model/daemonset_overhead.h"

#include <map>
#include <string>

namespace fitscale {

Resources daemonset_overhead(const std::vector<Pod>& pods) {
  // Ordered map: the sum is the same whatever order the pods came in.
  std::map<std::string, Resources> per_daemonset;
  for (const Pod& p : pods) {
    if (!p.is_daemon() || p.terminating) continue;
    if (p.phase == PodPhase::Succeeded || p.phase == PodPhase::Failed) continue;
    const std::string key = p.ns + "/" + (p.owner.uid.empty() ? p.owner.name : p.owner.uid);
    Resources r = p.requests;
    r.pods = 1;
    auto [it, inserted] = per_daemonset.try_emplace(key, r);
    if (!inserted) it->second = Resources::max(it->second, r);
  }
  Resources total;
  for (const auto& [key, r] : per_daemonset) total += r;
  return total;
}

}  // namespace fitscale
