#pragma once
// Small accessors for the JSON objects the store holds, so controllers read
// `name_of(pod)` rather than walking metadata by hand everywhere.
#include <nlohmann/json.hpp>
#include <string>

namespace fitscale::vcluster {

inline std::string meta_string(const nlohmann::json& obj, const char* field) {
  auto md = obj.find("metadata");
  if (md == obj.end() || !md->is_object()) return "";
  auto it = md->find(field);
  return it != md->end() && it->is_string() ? it->get<std::string>() : "";
}
inline std::string name_of(const nlohmann::json& obj) { return meta_string(obj, "name"); }
inline std::string namespace_of(const nlohmann::json& obj) { return meta_string(obj, "namespace"); }
inline std::string uid_of(const nlohmann::json& obj) { return meta_string(obj, "uid"); }
inline bool is_terminating(const nlohmann::json& obj) {
  auto md = obj.find("metadata");
  return md != obj.end() && md->is_object() && md->contains("deletionTimestamp") &&
         !(*md)["deletionTimestamp"].is_null();
}
// Reads a nested string ("status", "phase"); "" when absent.
inline std::string string_at(const nlohmann::json& obj, const nlohmann::json::json_pointer& p) {
  return obj.contains(p) && obj.at(p).is_string() ? obj.at(p).get<std::string>() : "";
}
inline std::string pod_phase(const nlohmann::json& pod) {
  return string_at(pod, nlohmann::json::json_pointer("/status/phase"));
}
inline std::string pod_node(const nlohmann::json& pod) {
  return string_at(pod, nlohmann::json::json_pointer("/spec/nodeName"));
}
inline std::string annotation_of(const nlohmann::json& obj, const std::string& key) {
  auto md = obj.find("metadata");
  if (md == obj.end() || !md->is_object()) return "";
  auto a = md->find("annotations");
  if (a == md->end() || !a->is_object()) return "";
  auto it = a->find(key);
  return it != a->end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace fitscale::vcluster
