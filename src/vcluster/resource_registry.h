#pragma once
// The resources the virtual cluster serves: one table drives routing, discovery and list kinds,
// so a resource added here is served by the generic REST handlers with no other change.
// Built-in kinds are a fixed table; CustomResourceDefinitions add and withdraw entries at run
// time through ResourceRegistry.
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

namespace fitscale::vcluster {

// One additionalPrinterColumns entry of a CustomResourceDefinition version.
struct PrinterColumn {
  std::string name;
  std::string type;  // integer number string boolean date
  std::string format;
  std::string description;
  int priority = 0;
  std::string json_path;  // ".spec.replicas"
};

// The scale subresource of a custom resource: where replicas live in the object.
struct ScalePaths {
  std::string spec_replicas;    // ".spec.replicas"
  std::string status_replicas;  // ".status.replicas"
  std::string label_selector;   // ".status.selector", may be empty
};

struct ResourceInfo {
  std::string group;    // "" for the core group
  std::string version;  // "v1"
  std::string plural;   // "pods"
  std::string singular;
  std::string kind;  // "Pod"
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> subresources;  // "status", "eviction", "binding", "scale"
  std::vector<std::string> categories;    // "all"
  std::vector<std::string> verbs;         // empty = every verb of a stored resource
  // The store's key for these objects; empty = `plural`. Two entries with one key share their
  // objects: events and events.k8s.io events, and every served version of one custom resource.
  std::string storage;
  // Custom resources only (from their CustomResourceDefinition).
  bool custom = false;
  std::shared_ptr<const nlohmann::json> schema;  // openAPIV3Schema; null = anything goes
  std::vector<PrinterColumn> printer_columns;
  ScalePaths scale;

  std::string group_version() const { return group.empty() ? version : group + "/" + version; }
  const std::string& store_key() const { return storage.empty() ? plural : storage; }
  bool has_subresource(std::string_view sub) const;
};

// The built-in kinds (an immutable table).
const std::vector<ResourceInfo>& builtin_resources();
// nullptr when the group/version does not serve `plural` among the built-in kinds.
const ResourceInfo* find_builtin(std::string_view group, std::string_view version,
                                 std::string_view plural);
const ResourceInfo& resource_by_plural(std::string_view plural);  // built-in; std::out_of_range

// Built-in kinds plus the custom resources of established CustomResourceDefinitions.
// Thread-safe. A pointer it hands out stays valid for the registry's lifetime, even after the
// definition is withdrawn, so a request in flight never reads freed memory.
class ResourceRegistry {
 public:
  const ResourceInfo* find(std::string_view group, std::string_view version,
                           std::string_view plural) const;
  std::vector<const ResourceInfo*> all() const;  // built-ins first, then custom resources
  // Serves `versions` (one entry per served version) for the definition `crd_name`, replacing
  // what it served before.
  void serve(const std::string& crd_name, std::vector<ResourceInfo> versions);
  void withdraw(const std::string& crd_name);

 private:
  mutable std::shared_mutex mu_;
  std::map<std::string, std::vector<std::shared_ptr<const ResourceInfo>>> custom_;
  std::vector<std::shared_ptr<const ResourceInfo>> retired_;
};

}  // namespace fitscale::vcluster
