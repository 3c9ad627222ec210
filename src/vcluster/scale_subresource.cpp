#include "vcluster/scale_subresource.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "vcluster/api_error.h"
#include "vcluster/object_meta.h"

namespace fitscale::vcluster {
namespace {

using nlohmann::json;

// ".spec.replicas" -> /spec/replicas (the simple paths the scale subresource allows).
json::json_pointer pointer(const std::string& dotted) {
  std::string p;
  for (char c : dotted) p += c == '.' ? '/' : c;
  return json::json_pointer(p.empty() || p[0] != '/' ? "/" + p : p);
}

std::string joined_values(const json& values) {
  std::vector<std::string> v;
  if (values.is_array()) {
    v.reserve(values.size());
    for (const auto& x : values) {
      if (x.is_string()) v.push_back(x.get<std::string>());
    }
  }
  std::sort(v.begin(), v.end());
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

}  // namespace

std::string label_selector_string(const json& selector) {
  if (!selector.is_object()) return "";
  std::vector<std::pair<std::string, std::string>> reqs;  // key, rendered requirement
  if (auto it = selector.find("matchLabels"); it != selector.end() && it->is_object()) {
    for (const auto& [k, v] : it->items()) {
      if (v.is_string()) reqs.emplace_back(k, k + "=" + v.get<std::string>());
    }
  }
  if (auto it = selector.find("matchExpressions"); it != selector.end() && it->is_array()) {
    for (const auto& e : *it) {
      if (!e.is_object() || !e.contains("key") || !e["key"].is_string()) continue;
      const std::string key = e["key"].get<std::string>();
      const std::string op = e.value("operator", "");
      const json values = e.value("values", json::array());
      if (op == "In") reqs.emplace_back(key, key + " in (" + joined_values(values) + ")");
      if (op == "NotIn") reqs.emplace_back(key, key + " notin (" + joined_values(values) + ")");
      if (op == "Exists") reqs.emplace_back(key, key);
      if (op == "DoesNotExist") reqs.emplace_back(key, "!" + key);
    }
  }
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& r : reqs) out += (out.empty() ? "" : ",") + r.second;
  return out;
}

json scale_of(const ResourceInfo& r, const json& obj) {
  json md = json::object();
  for (const char* f : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
    if (obj["metadata"].contains(f)) md[f] = obj["metadata"][f];
  }
  json scale = {{"kind", "Scale"},
                {"apiVersion", "autoscaling/v1"},
                {"metadata", md},
                {"spec", json::object()},
                {"status", {{"replicas", 0}}}};
  auto read = [&](const std::string& path) -> json {
    if (path.empty()) return nullptr;
    auto p = pointer(path);
    return obj.contains(p) ? obj.at(p) : json();
  };
  if (auto v = read(r.scale.spec_replicas); v.is_number_integer()) scale["spec"]["replicas"] = v;
  if (auto v = read(r.scale.status_replicas); v.is_number_integer()) {
    scale["status"]["replicas"] = v;
  }
  // A custom resource's labelSelectorPath points at a string; a Deployment's at its
  // spec.selector, a LabelSelector that the Scale carries serialized.
  if (auto v = read(r.scale.label_selector); v.is_string()) {
    scale["status"]["selector"] = v;
  } else if (v.is_object()) {
    scale["status"]["selector"] = label_selector_string(v);
  }
  return scale;
}

json with_scale(const ResourceInfo& r, json obj, const json& scale) {
  if (!scale.is_object() || !scale.contains("spec") || !scale["spec"].is_object() ||
      !scale["spec"].contains("replicas") || !scale["spec"]["replicas"].is_number_integer()) {
    throw ApiError(422, "Invalid",
                   "Scale.autoscaling \"" + name_of(obj) +
                       "\" is invalid: spec.replicas: Required value: an integer");
  }
  if (scale["spec"]["replicas"].get<long long>() < 0) {
    throw ApiError(422, "Invalid",
                   "Scale.autoscaling \"" + name_of(obj) + "\" is invalid: spec.replicas: " +
                       "Invalid value: " + scale["spec"]["replicas"].dump() +
                       ": must be greater than or equal to 0");
  }
  obj[pointer(r.scale.spec_replicas)] = scale["spec"]["replicas"];
  const std::string rv = meta_string(scale, "resourceVersion");
  if (!rv.empty()) obj["metadata"]["resourceVersion"] = rv;
  return obj;
}

}  // namespace fitscale::vcluster
