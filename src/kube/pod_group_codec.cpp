#include "kube/pod_group_codec.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "model/error.h"

namespace fitscale {

using json = nlohmann::json;

namespace {
PodGroupView read_pod_group(const json& o, GangSizer kind) {
  if (!o.is_object()) throw InputError("expected a PodGroup object");
  PodGroupView g;
  g.kind = kind;
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

PodGroupView decode_pod_group(const json& o, GangSizer kind) {
  try {
    return read_pod_group(o, kind);
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

void decode_gang_object_page(std::string_view page, const std::string& resource,
                             const std::function<PodGroupView(const json&)>& decode,
                             std::vector<std::pair<std::string, PodGroupView>>& items,
                             std::vector<std::pair<std::string, std::string>>& bad) {
  json j;
  try {
    j = json::parse(page);
  } catch (const json::exception& e) {
    throw InputError(resource + ": not JSON: " + e.what());
  }
  const json list = j.value("items", json::array());
  if (!list.is_array()) throw InputError(resource + ": items: expected an array");
  for (const auto& item : list) {
    const std::string key = key_of(item);
    try {
      items.emplace_back(key, decode(item));
    } catch (const InputError& e) {
      bad.emplace_back(key, e.what());
    }
  }
}

namespace {
// Without its path: each caller sets it as a literal (test_deploy.py reads the literals to check
// the chart's RBAC).
ResourceCodec<PodGroupView> codec_of(std::string resource, GangSizer kind) {
  ResourceCodec<PodGroupView> c;
  c.resource = std::move(resource);
  c.decode_list = [kind, name = c.resource](
                      std::string_view page,
                      std::vector<std::pair<std::string, PodGroupView>>& items,
                      std::vector<std::pair<std::string, std::string>>& bad) {
    decode_gang_object_page(
        page, name, [kind](const json& o) { return decode_pod_group(o, kind); }, items, bad);
  };
  c.decode_object = [kind](std::string_view object_json) {
    json j;
    try {
      j = json::parse(object_json);
    } catch (const json::exception& e) {
      throw InputError(std::string("not JSON: ") + e.what());
    }
    return decode_pod_group(j, kind);
  };
  return c;
}
}  // namespace

ResourceCodec<PodGroupView> pod_group_codec() {
  ResourceCodec<PodGroupView> c = codec_of("podgroups", GangSizer::CoschedulingPodGroup);
  c.path = "/apis/scheduling.x-k8s.io/v1alpha1/podgroups";
  return c;
}

ResourceCodec<PodGroupView> volcano_pod_group_codec() {
  ResourceCodec<PodGroupView> c = codec_of("volcano podgroups", GangSizer::VolcanoPodGroup);
  c.path = "/apis/scheduling.volcano.sh/v1beta1/podgroups";
  return c;
}

}  // namespace fitscale
