#include "vcluster/server_side_apply.h"

#include <algorithm>
#include <map>
#include <vector>

#include "kube/decode_yaml.h"
#include "model/error.h"
#include "vcluster/api_error.h"
#include "vcluster/request_body.h"
#include "vcluster/strategic_merge.h"

namespace fitscale::vcluster {
namespace {

// One field of a FieldsV1 set: its tokens from the root ("f:spec", "k:{\"name\":\"a\"}",
// "f:image").
using FieldPath = std::vector<std::string>;

void leaf_paths(const nlohmann::json& set, FieldPath& prefix, std::vector<FieldPath>& out) {
  if (!set.is_object()) return;
  for (auto it = set.begin(); it != set.end(); ++it) {
    prefix.push_back(it.key());
    if (it->is_object() && !it->empty())
      leaf_paths(*it, prefix, out);
    else
      out.push_back(prefix);
    prefix.pop_back();
  }
}

std::vector<FieldPath> leaf_paths(const nlohmann::json& set) {
  std::vector<FieldPath> out;
  FieldPath prefix;
  leaf_paths(set, prefix, out);
  return out;
}

// The value a field path names in an object; nullptr when the object lacks it.
const nlohmann::json* value_at(const nlohmann::json& obj, const FieldPath& path) {
  const nlohmann::json* at = &obj;
  for (const auto& token : path) {
    const std::string rest = token.substr(std::min<std::size_t>(2, token.size()));
    if (token.rfind("f:", 0) == 0) {
      if (!at->is_object()) return nullptr;
      auto it = at->find(rest);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else if (token.rfind("k:", 0) == 0 || token.rfind("v:", 0) == 0) {
      if (!at->is_array()) return nullptr;
      const nlohmann::json want = nlohmann::json::parse(rest, nullptr, false);
      const nlohmann::json* found = nullptr;
      for (const auto& e : *at) {
        bool match = token[0] == 'v' ? e == want : e.is_object() && want.is_object();
        if (token[0] == 'k' && match) {
          for (auto kv = want.begin(); kv != want.end() && match; ++kv) {
            match = e.contains(kv.key()) && e[kv.key()] == kv.value();
          }
        }
        if (match) {
          found = &e;
          break;
        }
      }
      if (found == nullptr) return nullptr;
      at = found;
    } else {
      return nullptr;
    }
  }
  return at;
}

// As structured-merge-diff prints a path: .spec.containers[name="a"].image, .finalizers[="x"].
std::string path_string(const FieldPath& path) {
  std::string out;
  for (const auto& token : path) {
    const std::string rest = token.substr(std::min<std::size_t>(2, token.size()));
    if (token.rfind("f:", 0) == 0) {
      out += "." + rest;
    } else if (token.rfind("k:", 0) == 0) {
      const nlohmann::json key = nlohmann::json::parse(rest, nullptr, false);
      std::string inner;
      if (key.is_object()) {
        for (auto kv = key.begin(); kv != key.end(); ++kv) {
          inner += (inner.empty() ? "" : ",") + kv.key() + "=" + kv.value().dump();
        }
      }
      out += "[" + inner + "]";
    } else {
      out += "[=" + rest + "]";
    }
  }
  return out;
}

// Removes one field from a FieldsV1 set, and the sets left empty above it.
void erase_path(nlohmann::json& set, const FieldPath& path, std::size_t i = 0) {
  if (i >= path.size() || !set.is_object()) return;
  auto it = set.find(path[i]);
  if (it == set.end()) return;
  if (i + 1 < path.size()) {
    erase_path(*it, path, i + 1);
    if (!it->empty()) return;
  }
  set.erase(it);
}

struct FieldConflict {
  std::string manager;
  FieldPath path;
};

bool same_value(const nlohmann::json* a, const nlohmann::json* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return *a == *b;
}

// The fields of `config` that another Apply manager owns with a different value in `stored`.
std::vector<FieldConflict> conflicts_of(const nlohmann::json& stored, const nlohmann::json& config,
                                        const nlohmann::json& applied_set,
                                        const std::string& manager) {
  std::vector<FieldConflict> out;
  const auto& md = stored.value("metadata", nlohmann::json::object());
  const auto managed = md.value("managedFields", nlohmann::json::array());
  if (!managed.is_array()) return out;
  const std::vector<FieldPath> applied = leaf_paths(applied_set);
  for (const auto& m : managed) {
    if (!m.is_object() || m.value("operation", "") != "Apply" ||
        m.value("manager", "") == manager || !m.contains("fieldsV1")) {
      continue;
    }
    const auto owned = leaf_paths(m["fieldsV1"]);
    for (const auto& p : applied) {
      if (std::find(owned.begin(), owned.end(), p) == owned.end()) continue;
      if (!same_value(value_at(stored, p), value_at(config, p))) {
        out.push_back({m.value("manager", ""), p});
      }
    }
  }
  return out;
}

// kube-apiserver's wording (apiserver's fieldmanager conflict error): one conflict on one line,
// several grouped by manager in name order.
ApiError conflict_error(const std::vector<FieldConflict>& conflicts) {
  auto quoted = [](const std::string& m) { return nlohmann::json(m).dump(); };
  std::string message;
  if (conflicts.size() == 1) {
    message = "Apply failed with 1 conflict: conflict with " + quoted(conflicts[0].manager) + ": " +
              path_string(conflicts[0].path);
  } else {
    std::map<std::string, std::vector<std::string>> by_manager;
    for (const auto& c : conflicts) by_manager[c.manager].push_back(path_string(c.path));
    std::string lines;
    for (const auto& [m, paths] : by_manager) {
      lines += (lines.empty() ? "" : "\n") + std::string("conflicts with ") + quoted(m) + ":";
      for (const auto& p : paths) lines += "\n- " + p;
    }
    message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
  }
  ApiError e(409, "Conflict", message);
  for (const auto& c : conflicts) {
    e.with_cause("FieldManagerConflict", path_string(c.path), "conflict with " + quoted(c.manager));
  }
  return e;
}

}  // namespace

nlohmann::json parse_apply_body(std::string_view body) {
  // JSON is YAML, so one reader serves both; the YAML path keeps its own depth limit.
  nlohmann::json applied = decode_object_body(body, "application/yaml");
  if (!applied.is_object()) throw bad_request("an apply patch must be an object");
  return applied;
}

void check_apply_request(const ApplyRequest& request) {
  if (request.field_manager.empty()) {
    throw bad_request(
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: "
        "is required for apply patch");
  }
}

nlohmann::json fields_v1(const nlohmann::json& config, const std::string& parent) {
  nlohmann::json out = nlohmann::json::object();
  if (!config.is_object()) return out;
  for (auto it = config.begin(); it != config.end(); ++it) {
    const std::string& k = it.key();
    if (parent.empty() && (k == "apiVersion" || k == "kind")) continue;  // never managed
    const auto& v = it.value();
    nlohmann::json entry = nlohmann::json::object();
    if (v.is_object()) {
      entry = fields_v1(v, k);
    } else if (v.is_array()) {
      const ListStrategy s = list_strategy(parent, k);
      for (const auto& e : v) {
        if (s.kind == ListStrategy::kMergeByKey && e.is_object() && e.contains(s.merge_key)) {
          entry["k:" + nlohmann::json{{s.merge_key, e[s.merge_key]}}.dump()] = fields_v1(e, k);
        } else if (s.kind == ListStrategy::kMergePrimitives) {
          entry["v:" + e.dump()] = nlohmann::json::object();
        }
      }
    }
    out["f:" + k] = std::move(entry);
  }
  return out;
}

nlohmann::json server_side_apply(const nlohmann::json& stored, const nlohmann::json& applied,
                                 const ApplyRequest& request) {
  nlohmann::json config = applied;
  if (config.contains("metadata") && config["metadata"].is_object()) {
    config["metadata"].erase("managedFields");  // the server writes these, not the client
  }
  nlohmann::json applied_set = fields_v1(config);
  std::vector<FieldConflict> conflicts;
  if (!stored.is_null()) {
    conflicts = conflicts_of(stored, config, applied_set, request.field_manager);
    if (!conflicts.empty() && !request.force) throw conflict_error(conflicts);
  }
  nlohmann::json out = stored.is_null() ? nlohmann::json::object() : stored;
  out = strategic_merge(out, config);
  nlohmann::json entry = {{"manager", request.field_manager},
                          {"operation", "Apply"},
                          {"apiVersion", applied.value("apiVersion", "")},
                          {"time", request.time},
                          {"fieldsType", "FieldsV1"},
                          {"fieldsV1", std::move(applied_set)}};
  nlohmann::json managed = nlohmann::json::array();
  if (!stored.is_null() && stored.contains("metadata") &&
      stored["metadata"].contains("managedFields") &&
      stored["metadata"]["managedFields"].is_array()) {
    for (auto m : stored["metadata"]["managedFields"]) {
      if (!m.is_object()) continue;
      const std::string owner = m.value("manager", "");
      if (owner == request.field_manager && m.value("operation", "") == "Apply") continue;
      // Forced: the fields this apply took are no longer the previous owner's.
      for (const auto& c : conflicts) {
        if (c.manager == owner && m.contains("fieldsV1")) erase_path(m["fieldsV1"], c.path);
      }
      if (m.contains("fieldsV1") && m["fieldsV1"].is_object() && m["fieldsV1"].empty()) continue;
      managed.push_back(std::move(m));
    }
  }
  managed.push_back(std::move(entry));
  out["metadata"]["managedFields"] = std::move(managed);
  return out;
}

}  // namespace fitscale::vcluster
