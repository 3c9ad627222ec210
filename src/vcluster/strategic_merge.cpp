#include "vcluster/strategic_merge.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "vcluster/api_error.h"

namespace fitscale::vcluster {
namespace {

constexpr const char* kPatch = "$patch";
constexpr const char* kRetainKeys = "$retainKeys";
const std::string kSetElementOrder = "$setElementOrder/";
const std::string kDeleteFromPrimitiveList = "$deleteFromPrimitiveList/";

ApiError invalid_patch(const std::string& message) {
  return ApiError(422, "Invalid", "the strategic merge patch is invalid: " + message);
}

bool is_directive_key(const std::string& k) { return !k.empty() && k[0] == '$'; }

// Removes directives from a value that is inserted as it is (no original to merge with).
nlohmann::json without_directives(const nlohmann::json& j) {
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (is_directive_key(it.key())) continue;
      if (it.value().is_null()) continue;  // a null in a patch deletes: nothing to delete here
      out[it.key()] = without_directives(it.value());
    }
    return out;
  }
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : j) {
      if (e.is_object() && e.contains(kPatch)) continue;  // directive elements
      out.push_back(without_directives(e));
    }
    return out;
  }
  return j;
}

std::string patch_directive(const nlohmann::json& obj) {
  if (!obj.is_object() || !obj.contains(kPatch)) return "";
  if (!obj[kPatch].is_string()) throw invalid_patch("$patch must be a string");
  std::string d = obj[kPatch].get<std::string>();
  if (d != "replace" && d != "delete" && d != "merge") {
    throw invalid_patch("unknown $patch directive \"" + d + "\"");
  }
  return d;
}

nlohmann::json merge_map(const nlohmann::json& original, const nlohmann::json& patch,
                         const std::string& parent);

// Reorders `list` so that the elements named in `order` (by merge key, or by value for a
// primitive list) come in that order; others keep their relative place after them.
void apply_element_order(nlohmann::json& list, const nlohmann::json& order,
                         const std::string& merge_key) {
  if (!list.is_array() || !order.is_array()) return;
  auto id = [&](const nlohmann::json& e) -> nlohmann::json {
    if (merge_key.empty()) return e;
    return e.is_object() && e.contains(merge_key) ? e[merge_key] : nlohmann::json();
  };
  std::vector<nlohmann::json> ordered;
  std::vector<bool> used(list.size(), false);
  for (const auto& o : order) {
    const nlohmann::json want = merge_key.empty() ? o : id(o);
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!used[i] && id(list[i]) == want) {
        used[i] = true;
        ordered.push_back(list[i]);
        break;
      }
    }
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!used[i]) ordered.push_back(list[i]);
  }
  list = nlohmann::json(std::move(ordered));
}

nlohmann::json merge_keyed_list(const nlohmann::json& original, const nlohmann::json& patch,
                                const std::string& field, const std::string& key) {
  nlohmann::json out = original.is_array() ? original : nlohmann::json::array();
  // {"$patch": "replace"} as an element: the patch's other elements are the whole list.
  for (const auto& e : patch) {
    if (patch_directive(e) == "replace") return without_directives(patch);
  }
  for (const auto& e : patch) {
    if (!e.is_object()) throw invalid_patch("elements of " + field + " must be objects");
    if (!e.contains(key)) {
      throw invalid_patch("an element of " + field + " has no merge key \"" + key + "\"");
    }
    auto match = std::find_if(out.begin(), out.end(), [&](const nlohmann::json& o) {
      return o.is_object() && o.contains(key) && o[key] == e[key];
    });
    if (patch_directive(e) == "delete") {
      out.erase(std::remove_if(out.begin(), out.end(),
                               [&](const nlohmann::json& o) {
                                 return o.is_object() && o.contains(key) && o[key] == e[key];
                               }),
                out.end());
      continue;
    }
    if (match != out.end()) {
      *match = merge_map(*match, e, field);
    } else {
      out.push_back(merge_map(nlohmann::json::object(), e, field));
    }
  }
  return out;
}

nlohmann::json merge_primitive_list(const nlohmann::json& original, const nlohmann::json& patch) {
  nlohmann::json out = original.is_array() ? original : nlohmann::json::array();
  for (const auto& e : patch) {
    if (e.is_object()) continue;  // a directive element
    if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  }
  return out;
}

nlohmann::json merge_map(const nlohmann::json& original, const nlohmann::json& patch,
                         const std::string& parent) {
  if (!patch.is_object()) return without_directives(patch);
  const std::string directive = patch_directive(patch);
  if (directive == "replace") return without_directives(patch);
  nlohmann::json out = original.is_object() ? original : nlohmann::json::object();
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    const nlohmann::json& v = it.value();
    if (is_directive_key(k)) continue;
    if (v.is_null()) {
      out.erase(k);
      continue;
    }
    if (v.is_object() && patch_directive(v) == "delete") {
      out.erase(k);
      continue;
    }
    if (v.is_object()) {
      out[k] = merge_map(out.contains(k) ? out[k] : nlohmann::json::object(), v, k);
      continue;
    }
    if (v.is_array()) {
      const ListStrategy s = list_strategy(parent, k);
      const nlohmann::json have = out.contains(k) ? out[k] : nlohmann::json::array();
      if (s.kind == ListStrategy::kMergeByKey) {
        out[k] = merge_keyed_list(have, v, k, s.merge_key);
      } else if (s.kind == ListStrategy::kMergePrimitives) {
        out[k] = merge_primitive_list(have, v);
      } else {
        out[k] = without_directives(v);
      }
      continue;
    }
    out[k] = v;
  }
  // Directives that name a field: run after the merge, on the merged lists.
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    if (k.rfind(kDeleteFromPrimitiveList, 0) == 0) {
      const std::string field = k.substr(kDeleteFromPrimitiveList.size());
      if (!it.value().is_array()) throw invalid_patch(k + " must be a list");
      if (out.contains(field) && out[field].is_array()) {
        auto& list = out[field];
        for (const auto& gone : it.value()) {
          list.erase(std::remove(list.begin(), list.end(), gone), list.end());
        }
      }
    } else if (k.rfind(kSetElementOrder, 0) == 0) {
      const std::string field = k.substr(kSetElementOrder.size());
      if (!it.value().is_array()) throw invalid_patch(k + " must be a list");
      if (out.contains(field)) {
        const ListStrategy s = list_strategy(parent, field);
        apply_element_order(out[field], it.value(),
                            s.kind == ListStrategy::kMergeByKey ? s.merge_key : "");
      }
    }
  }
  if (patch.contains(kRetainKeys)) {
    const auto& keep = patch[kRetainKeys];
    if (!keep.is_array()) throw invalid_patch("$retainKeys must be a list");
    for (auto it = out.begin(); it != out.end();) {
      if (std::find(keep.begin(), keep.end(), it.key()) == keep.end()) {
        it = out.erase(it);
      } else {
        ++it;
      }
    }
  }
  return out;
}

}  // namespace

ListStrategy list_strategy(const std::string& parent, const std::string& field) {
  using K = ListStrategy::Kind;
  // Fields whose merge key depends on the enclosing field.
  if (field == "ports") {
    if (parent == "containers" || parent == "initContainers" || parent == "ephemeralContainers") {
      return {K::kMergeByKey, "containerPort"};
    }
    if (parent == "spec") return {K::kMergeByKey, "port"};  // ServiceSpec.ports
    return {};
  }
  static const std::map<std::string, std::string> kByKey = {
      {"containers", "name"},
      {"initContainers", "name"},
      {"ephemeralContainers", "name"},
      {"env", "name"},
      {"volumes", "name"},
      {"volumeMounts", "mountPath"},
      {"volumeDevices", "devicePath"},
      {"imagePullSecrets", "name"},
      {"hostAliases", "ip"},
      {"conditions", "type"},
      {"addresses", "type"},  // NodeStatus.addresses
      {"ownerReferences", "uid"},
      {"resourceClaims", "name"},
      {"topologySpreadConstraints", "topologyKey"},
      {"schedulingGates", "name"},
  };
  if (auto it = kByKey.find(field); it != kByKey.end()) return {K::kMergeByKey, it->second};
  if (field == "finalizers") return {K::kMergePrimitives, ""};
  return {};  // tolerations, taints, args, command, ...: replaced
}

nlohmann::json strategic_merge(const nlohmann::json& original, const nlohmann::json& patch) {
  if (!patch.is_object()) throw bad_request("a strategic merge patch must be a JSON object");
  return merge_map(original, patch, "");
}

}  // namespace fitscale::vcluster
