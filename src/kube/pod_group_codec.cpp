#include "kube/pod_group_codec.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "model/error.h"

namespace fitscale {

using json = nlohmann::json;

namespace {
PodGroupView read_pod_group(const json& o) {
  if (!o.is_object()) throw InputError("expected a PodGroup object");
  PodGroupView g;
  const json meta = o.value("metadata", json::object());
  if (!meta.is_object()) throw InputError("metadata: expected an object");
  g.name = meta.value("name", std::string());
  g.ns = meta.value("namespace", std::string("default"));
  if (g.name.empty()) throw InputError("metadata.name: missing");
  const json spec = o.value("spec", json::object());
  if (!spec.is_object()) throw InputError("spec: expected an object");
  if (spec.contains("minMember")) {
    const json& m = spec["minMember"];
    if (!m.is_number_integer())
      throw InputError("spec.minMember: expected a whole number, got " + m.dump());
    g.min_member = std::max<std::int64_t>(1, m.get<std::int64_t>());
  }
  return g;
}
}  // namespace

PodGroupView decode_pod_group(const json& o) {
  try {
    return read_pod_group(o);
  } catch (const json::exception& e) {
    // A field of the wrong type (metadata.name: 5) is bad input like any other.
    throw InputError(std::string("PodGroup: unreadable field: ") + e.what());
  }
}

namespace {
std::string key_of(const json& item) {
  if (!item.is_object() || !item.contains("metadata") || !item["metadata"].is_object()) return "?";
  const json& m = item["metadata"];
  return m.value("namespace", std::string()) + "/" + m.value("name", std::string());
}
}  // namespace

ResourceCodec<PodGroupView> pod_group_codec() {
  ResourceCodec<PodGroupView> c;
  c.resource = "podgroups";
  c.path = "/apis/scheduling.x-k8s.io/v1alpha1/podgroups";  // literal: test_deploy.py reads it
  c.decode_list = [](std::string_view page,
                     std::vector<std::pair<std::string, PodGroupView>>& items,
                     std::vector<std::pair<std::string, std::string>>& bad) {
    json j;
    try {
      j = json::parse(page);
    } catch (const json::exception& e) {
      throw InputError(std::string("podgroups: not JSON: ") + e.what());
    }
    const json list = j.value("items", json::array());
    if (!list.is_array()) throw InputError("podgroups: items: expected an array");
    for (const auto& item : list) {
      const std::string key = key_of(item);
      try {
        items.emplace_back(key, decode_pod_group(item));
      } catch (const InputError& e) {
        bad.emplace_back(key, e.what());
      }
    }
  };
  c.decode_object = [](std::string_view object_json) {
    json j;
    try {
      j = json::parse(object_json);
    } catch (const json::exception& e) {
      throw InputError(std::string("not JSON: ") + e.what());
    }
    return decode_pod_group(j);
  };
  return c;
}

}  // namespace fitscale
