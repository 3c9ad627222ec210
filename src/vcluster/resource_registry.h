#pragma once
// The resources the virtual cluster serves: one table drives routing, discovery and list kinds,
// so a resource added here is served by the generic REST handlers with no other change.
#include <string>
#include <string_view>
#include <vector>

namespace fitscale::vcluster {

struct ResourceInfo {
  std::string group;    // "" for the core group
  std::string version;  // "v1"
  std::string plural;   // "pods"; unique across groups in this server, so it keys the store
  std::string singular;
  std::string kind;  // "Pod"
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> subresources;  // "status", "eviction", "binding"

  std::string group_version() const { return group.empty() ? version : group + "/" + version; }
};

const std::vector<ResourceInfo>& served_resources();
// nullptr when the group/version does not serve `plural`.
const ResourceInfo* find_resource(std::string_view group, std::string_view version,
                                  std::string_view plural);
const ResourceInfo& resource_by_plural(std::string_view plural);  // throws std::out_of_range

}  // namespace fitscale::vcluster
