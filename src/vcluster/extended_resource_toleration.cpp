#include "vcluster/extended_resource_toleration.h"

#include <set>
#include <string>

namespace fitscale::vcluster {
namespace {

// Kubernetes' IsExtendedResourceName: fully qualified, not in the kubernetes.io domain, not a
// requests. quota name. hugepages- and the native names have no '/'.
bool is_extended(const std::string& name) {
  const auto slash = name.find('/');
  if (slash == std::string::npos) return false;
  const std::string domain = name.substr(0, slash);
  if (domain == "kubernetes.io" || (domain.size() > 14 && domain.ends_with(".kubernetes.io"))) {
    return false;
  }
  return !name.starts_with("requests.");
}

void collect(const nlohmann::json& containers, std::set<std::string>& out) {
  if (!containers.is_array()) return;
  for (const auto& c : containers) {
    const auto res = c.find("resources");
    if (res == c.end() || !res->is_object()) continue;
    for (const char* part : {"requests", "limits"}) {
      const auto m = res->find(part);
      if (m == res->end() || !m->is_object()) continue;
      for (const auto& [name, value] : m->items()) {
        if (is_extended(name)) out.insert(name);
      }
    }
  }
}

}  // namespace

void add_extended_resource_tolerations(nlohmann::json& pod) {
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return;
  std::set<std::string> names;
  if (auto c = spec->find("containers"); c != spec->end()) collect(*c, names);
  if (auto c = spec->find("initContainers"); c != spec->end()) collect(*c, names);
  if (names.empty()) return;
  auto& tolerations = (*spec)["tolerations"];
  if (!tolerations.is_array()) tolerations = nlohmann::json::array();
  for (const std::string& name : names) {
    const nlohmann::json t = {{"key", name}, {"operator", "Exists"}, {"effect", "NoSchedule"}};
    bool present = false;
    for (const auto& have : tolerations) present = present || have == t;
    if (!present) tolerations.push_back(t);
  }
}

}  // namespace fitscale::vcluster
