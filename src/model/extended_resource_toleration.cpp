#include "model/extended_resource_toleration.h"

#include <algorithm>

#include "model/pool.h"

namespace fitscale {

std::vector<std::string> extended_resource_names(const Resources& requests) {
  std::vector<std::string> out;
  if (requests.gpus > 0) out.emplace_back(kGpuTaintKey);
  for (const auto& [name, v] : requests.extended) {
    if (v > 0 && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

bool add_extended_resource_tolerations(Pod& pod) {
  bool added = false;
  for (const std::string& name : extended_resource_names(pod.requests)) {
    Toleration t;
    t.key = name;
    t.exists = true;
    t.effect = TaintEffect::NoSchedule;
    if (std::find(pod.tolerations.begin(), pod.tolerations.end(), t) != pod.tolerations.end())
      continue;
    pod.tolerations.push_back(std::move(t));
    added = true;
  }
  return added;
}

}  // namespace fitscale
