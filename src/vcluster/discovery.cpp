#include "vcluster/discovery.h"

#include <set>

#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {
namespace {

nlohmann::json verbs_for(const std::string& sub) {
  if (sub == "status") return {"get", "patch", "update"};
  if (sub == "eviction" || sub == "binding") return {"create"};
  return {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
}

nlohmann::json group_entry(const std::string& group, const std::string& version) {
  nlohmann::json gv = {{"groupVersion", group + "/" + version}, {"version", version}};
  return {{"name", group}, {"versions", nlohmann::json::array({gv})}, {"preferredVersion", gv}};
}

}  // namespace

nlohmann::json core_api_versions(const std::string& server_address) {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs",
           {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
}

nlohmann::json api_group_list() {
  nlohmann::json groups = nlohmann::json::array();
  std::set<std::string> seen;
  for (const auto& r : served_resources()) {
    if (r.group.empty() || !seen.insert(r.group).second) continue;
    groups.push_back(group_entry(r.group, r.version));
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

std::optional<nlohmann::json> api_group(const std::string& group) {
  for (const auto& r : served_resources()) {
    if (r.group == group && !group.empty()) {
      auto g = group_entry(group, r.version);
      g["kind"] = "APIGroup";
      g["apiVersion"] = "v1";
      return g;
    }
  }
  return std::nullopt;
}

std::optional<nlohmann::json> api_resource_list(const std::string& group,
                                                const std::string& version) {
  nlohmann::json resources = nlohmann::json::array();
  for (const auto& r : served_resources()) {
    if (r.group != group || r.version != version) continue;
    nlohmann::json e = {{"name", r.plural},
                        {"singularName", r.singular},
                        {"namespaced", r.namespaced},
                        {"kind", r.kind},
                        {"verbs", verbs_for("")}};
    if (!r.short_names.empty()) e["shortNames"] = r.short_names;
    resources.push_back(e);
    for (const auto& sub : r.subresources) {
      std::string kind = sub == "eviction" ? "Eviction" : sub == "binding" ? "Binding" : r.kind;
      nlohmann::json s = {{"name", r.plural + "/" + sub},
                          {"singularName", ""},
                          {"namespaced", r.namespaced},
                          {"kind", kind},
                          {"verbs", verbs_for(sub)}};
      if (sub == "eviction") {
        s["group"] = "policy";
        s["version"] = "v1";
      }
      resources.push_back(s);
    }
  }
  if (resources.empty()) return std::nullopt;
  return nlohmann::json{{"kind", "APIResourceList"},
                        {"apiVersion", "v1"},
                        {"groupVersion", group.empty() ? version : group + "/" + version},
                        {"resources", resources}};
}

nlohmann::json version_info() {
  return {{"major", "1"},
          {"minor", "32"},
          {"gitVersion", "v1.32.0-fitscale"},
          {"gitCommit", "fitscale-virtual-cluster"},
          {"gitTreeState", "clean"},
          {"buildDate", "2026-11-29T00:00:00Z"},
          {"goVersion", "none"},
          {"compiler", "c++"},
          {"platform", "linux/amd64"}};
}

}  // namespace fitscale::vcluster
