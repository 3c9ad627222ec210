#include "vcluster/server_side_apply.h"

#include "kube/decode_yaml.h"
#include "model/error.h"
#include "vcluster/api_error.h"
#include "vcluster/request_body.h"
#include "vcluster/strategic_merge.h"

namespace fitscale::vcluster {

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
  nlohmann::json out = stored.is_null() ? nlohmann::json::object() : stored;
  out = strategic_merge(out, config);
  nlohmann::json entry = {{"manager", request.field_manager},
                          {"operation", "Apply"},
                          {"apiVersion", applied.value("apiVersion", "")},
                          {"time", request.time},
                          {"fieldsType", "FieldsV1"},
                          {"fieldsV1", fields_v1(config)}};
  nlohmann::json managed = nlohmann::json::array();
  if (!stored.is_null() && stored.contains("metadata") &&
      stored["metadata"].contains("managedFields") &&
      stored["metadata"]["managedFields"].is_array()) {
    for (const auto& m : stored["metadata"]["managedFields"]) {
      if (!(m.is_object() && m.value("manager", "") == request.field_manager &&
            m.value("operation", "") == "Apply")) {
        managed.push_back(m);
      }
    }
  }
  managed.push_back(std::move(entry));
  out["metadata"]["managedFields"] = std::move(managed);
  return out;
}

}  // namespace fitscale::vcluster
