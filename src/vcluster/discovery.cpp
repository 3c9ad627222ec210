#include "vcluster/discovery.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace fitscale::vcluster {
namespace {

nlohmann::json verbs_for(const ResourceInfo& r, const std::string& sub) {
  if (sub == "status" || sub == "scale") return {"get", "patch", "update"};
  if (sub == "eviction" || sub == "binding") return {"create"};
  if (!r.verbs.empty()) return r.verbs;
  return {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
}

// (0 GA / 1 beta / 2 alpha / 3 other, -major, -minor) for kube-like versions.
std::tuple<int, long, long, std::string> version_key(std::string_view v) {
  auto digits = [](std::string_view s, std::size_t& i) {
    long n = 0;
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') n = n * 10 + (s[i++] - '0');
    return i > start ? n : -1;
  };
  std::size_t i = 1;
  if (v.size() < 2 || v[0] != 'v') return {3, 0, 0, std::string(v)};
  const long major = digits(v, i);
  if (major < 0) return {3, 0, 0, std::string(v)};
  if (i == v.size()) return {0, -major, 0, ""};
  for (auto [word, rank] : {std::pair<std::string_view, int>{"beta", 1}, {"alpha", 2}}) {
    if (v.substr(i, word.size()) == word) {
      std::size_t j = i + word.size();
      const long minor = digits(v, j);
      if (minor >= 0 && j == v.size()) return {rank, -major, -minor, ""};
    }
  }
  return {3, 0, 0, std::string(v)};
}

// group -> its versions, highest priority first.
std::map<std::string, std::vector<std::string>> group_versions(const ResourceRegistry& registry) {
  std::map<std::string, std::set<std::string>> seen;
  for (const auto* r : registry.all()) {
    if (!r->group.empty()) seen[r->group].insert(r->version);
  }
  std::map<std::string, std::vector<std::string>> out;
  for (auto& [group, versions] : seen) {
    auto& v = out[group];
    v.assign(versions.begin(), versions.end());
    std::sort(v.begin(), v.end(),
              [](const std::string& a, const std::string& b) { return version_precedes(a, b); });
  }
  return out;
}

nlohmann::json group_entry(const std::string& group, const std::vector<std::string>& versions) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& v : versions)
    list.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
  return {{"name", group}, {"versions", list}, {"preferredVersion", list.at(0)}};
}

}  // namespace

bool version_precedes(std::string_view a, std::string_view b) {
  return version_key(a) < version_key(b);
}

nlohmann::json core_api_versions(const std::string& server_address) {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs",
           {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
}

nlohmann::json api_group_list(const ResourceRegistry& registry) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& [group, versions] : group_versions(registry)) {
    groups.push_back(group_entry(group, versions));
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

std::optional<nlohmann::json> api_group(const ResourceRegistry& registry,
                                        const std::string& group) {
  auto all = group_versions(registry);
  auto it = all.find(group);
  if (group.empty() || it == all.end()) return std::nullopt;
  auto g = group_entry(group, it->second);
  g["kind"] = "APIGroup";
  g["apiVersion"] = "v1";
  return g;
}

std::optional<nlohmann::json> api_resource_list(const ResourceRegistry& registry,
                                                const std::string& group,
                                                const std::string& version) {
  nlohmann::json resources = nlohmann::json::array();
  for (const auto* rp : registry.all()) {
    const auto& r = *rp;
    if (r.group != group || r.version != version) continue;
    nlohmann::json e = {{"name", r.plural},
                        {"singularName", r.singular},
                        {"namespaced", r.namespaced},
                        {"kind", r.kind},
                        {"verbs", verbs_for(r, "")}};
    if (!r.short_names.empty()) e["shortNames"] = r.short_names;
    if (!r.categories.empty()) e["categories"] = r.categories;
    resources.push_back(e);
    for (const auto& sub : r.subresources) {
      std::string kind = sub == "eviction"  ? "Eviction"
                         : sub == "binding" ? "Binding"
                         : sub == "scale"   ? "Scale"
                                            : r.kind;
      nlohmann::json s = {{"name", r.plural + "/" + sub},
                          {"singularName", ""},
                          {"namespaced", r.namespaced},
                          {"kind", kind},
                          {"verbs", verbs_for(r, sub)}};
      if (sub == "eviction") {
        s["group"] = "policy";
        s["version"] = "v1";
      }
      if (sub == "scale") {
        s["group"] = "autoscaling";
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
