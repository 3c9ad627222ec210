#include "controller/startup_taints.h"

#include <algorithm>

namespace fitscale {

void set_aside_startup_taints(Snapshot& snapshot, const std::vector<Pool>& pools, Time now) {
  if (std::none_of(pools.begin(), pools.end(),
                   [](const Pool& p) { return !p.startup_taints.empty(); }))
    return;
  for (Node& n : snapshot.nodes) {
    if (!n.managed || n.taints.empty() || now - n.created >= kStartupTaintGrace) continue;
    auto label = n.labels.find(label::kPool);
    if (label == n.labels.end()) continue;
    auto pool = std::find_if(pools.begin(), pools.end(),
                             [&](const Pool& p) { return p.name == label->second; });
    if (pool == pools.end() || pool->startup_taints.empty()) continue;
    std::erase_if(n.taints, [&](const Taint& t) {
      return std::any_of(pool->startup_taints.begin(), pool->startup_taints.end(),
                         [&](const Taint& s) { return s.key == t.key && s.effect == t.effect; });
    });
  }
}

}  // namespace fitscale
