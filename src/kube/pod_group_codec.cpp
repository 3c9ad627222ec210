#include "kube/pod_group_codec.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "kube/json_list_page.h"
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
// Without its path: each caller sets it as a literal (test_deploy.py reads the literals to check
// the chart's RBAC).
ResourceCodec<PodGroupView> codec_of(std::string resource, GangSizer kind) {
  ResourceCodec<PodGroupView> c;
  c.resource = std::move(resource);
  c.decode_list = [kind, name = c.resource](
                      std::string_view page,
                      std::vector<std::pair<std::string, PodGroupView>>& items,
                      std::vector<std::pair<std::string, std::string>>& bad) {
    decode_list_page(
        page, name, [kind](const json& o) { return decode_pod_group(o, kind); }, items, bad);
  };
  c.decode_object = [kind](std::string_view object_json) {
    return decode_pod_group(parse_api_json(object_json), kind);
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
