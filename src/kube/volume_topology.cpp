#include "kube/volume_topology.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "model/error.h"

namespace fitscale {
namespace {

using json = nlohmann::json;

const json& member(const json& o, const char* key) {
  static const json kNull;  // immutable: the answer for a missing member
  if (!o.is_object()) return kNull;
  auto it = o.find(key);
  return it == o.end() ? kNull : *it;
}

std::string name_of(const json& o) {
  const json& n = member(member(o, "metadata"), "name");
  return n.is_string() ? n.get<std::string>() : std::string();
}

std::string key_of(const json& o) {
  const json& ns = member(member(o, "metadata"), "namespace");
  return (ns.is_string() ? ns.get<std::string>() : std::string()) + "/" + name_of(o);
}

bool is_zone_key(const std::string& k) {
  return k == "topology.kubernetes.io/zone" || k == "failure-domain.beta.kubernetes.io/zone" ||
         k == "topology.ebs.csi.aws.com/zone";
}

// Without its path: each caller sets it as a literal (test_deploy.py reads the literals to check
// the chart's RBAC).
template <class T>
ResourceCodec<T> codec_of(const std::string& resource, T (*decode)(const json&)) {
  ResourceCodec<T> c;
  c.resource = resource;
  c.decode_list = [resource, decode](std::string_view page,
                                     std::vector<std::pair<std::string, T>>& items,
                                     std::vector<std::pair<std::string, std::string>>& bad) {
    json j;
    try {
      j = json::parse(page);
    } catch (const json::exception& e) {
      throw InputError(resource + ": not JSON: " + e.what());
    }
    const json& list = member(j, "items");
    if (!list.is_array()) throw InputError(resource + ": items: expected an array");
    for (const auto& item : list) {
      const std::string key = key_of(item);
      try {
        items.emplace_back(key, decode(item));
      } catch (const InputError& e) {
        bad.emplace_back(key, e.what());
      }
    }
  };
  c.decode_object = [resource, decode](std::string_view text) {
    json j;
    try {
      j = json::parse(text);
    } catch (const json::exception& e) {
      throw InputError(resource + ": not JSON: " + e.what());
    }
    return decode(j);
  };
  return c;
}

}  // namespace

ClaimView decode_claim(const json& o) {
  ClaimView c;
  c.key = key_of(o);
  if (name_of(o).empty()) throw InputError("PersistentVolumeClaim: metadata.name: missing");
  const json& volume = member(member(o, "spec"), "volumeName");
  if (!volume.is_null() && !volume.is_string())
    throw InputError("PersistentVolumeClaim " + c.key + ": spec.volumeName: expected a string");
  if (volume.is_string()) c.volume_name = volume.get<std::string>();
  return c;
}

VolumeView decode_volume(const json& o) {
  VolumeView v;
  v.name = name_of(o);
  if (v.name.empty()) throw InputError("PersistentVolume: metadata.name: missing");
  const std::string what = "PersistentVolume " + v.name + ": spec.nodeAffinity.required";
  const json& terms =
      member(member(member(member(o, "spec"), "nodeAffinity"), "required"), "nodeSelectorTerms");
  if (terms.is_null()) return v;
  if (!terms.is_array()) throw InputError(what + ".nodeSelectorTerms: expected an array");
  for (const json& t : terms) {
    const json& exprs = member(t, "matchExpressions");
    if (exprs.is_null()) continue;
    if (!exprs.is_array()) throw InputError(what + ".matchExpressions: expected an array");
    for (const json& e : exprs) {
      const json& key = member(e, "key");
      const json& op = member(e, "operator");
      const json& values = member(e, "values");
      if (!key.is_string() || !is_zone_key(key.get<std::string>())) continue;
      if (!op.is_string() || op.get<std::string>() != "In") continue;
      if (!values.is_array()) throw InputError(what + ": values of a zone term: expected an array");
      for (const json& z : values) {
        if (!z.is_string()) throw InputError(what + ": a zone: expected a string");
        v.zones.push_back(z.get<std::string>());
      }
    }
  }
  std::sort(v.zones.begin(), v.zones.end());
  v.zones.erase(std::unique(v.zones.begin(), v.zones.end()), v.zones.end());
  return v;
}

ResourceCodec<ClaimView> claim_codec() {
  ResourceCodec<ClaimView> c = codec_of<ClaimView>("persistentvolumeclaims", &decode_claim);
  c.path = "/api/v1/persistentvolumeclaims";
  return c;
}

ResourceCodec<VolumeView> volume_codec() {
  ResourceCodec<VolumeView> c = codec_of<VolumeView>("persistentvolumes", &decode_volume);
  c.path = "/api/v1/persistentvolumes";
  return c;
}

void apply_volume_zones(std::vector<Pod>& pods, const std::vector<ClaimView>& claims,
                        const std::vector<VolumeView>& volumes) {
  if (claims.empty() || volumes.empty()) return;
  std::map<std::string_view, const ClaimView*> claim_by_key;
  for (const ClaimView& c : claims) claim_by_key.emplace(c.key, &c);
  std::map<std::string_view, const VolumeView*> volume_by_name;
  for (const VolumeView& v : volumes) volume_by_name.emplace(v.name, &v);
  for (Pod& p : pods) {
    if (p.volume_claims.empty() || !p.node_name.empty()) continue;
    std::vector<std::string> zones;
    bool constrained = false;
    for (const std::string& claim : p.volume_claims) {
      auto c = claim_by_key.find(p.ns + "/" + claim);
      if (c == claim_by_key.end() || c->second->volume_name.empty()) continue;  // not bound yet
      auto v = volume_by_name.find(c->second->volume_name);
      if (v == volume_by_name.end() || v->second->zones.empty()) continue;
      if (!constrained) {
        zones = v->second->zones;
        constrained = true;
        continue;
      }
      std::vector<std::string> both;
      std::set_intersection(zones.begin(), zones.end(), v->second->zones.begin(),
                            v->second->zones.end(), std::back_inserter(both));
      if (!both.empty()) zones = std::move(both);
    }
    if (constrained) p.constraints.volume_zones = std::move(zones);
  }
}

VolumeInformers::VolumeInformers(const KubeConfig& config, const obs::Logger& log,
                                 const InformerOptions& options)
    : claims_(config, claim_codec(), log, options),
      volumes_(config, volume_codec(), log, options) {}

void VolumeInformers::start() {
  claims_.start();
  volumes_.start();
}

void VolumeInformers::request_stop() {
  claims_.request_stop();
  volumes_.request_stop();
}

void VolumeInformers::stop() {
  claims_.stop();
  volumes_.stop();
}

std::uint64_t VolumeInformers::generation() const {
  return claims_.cache().generation() + volumes_.cache().generation();
}

void VolumeInformers::apply(std::vector<Pod>& pods) const {
  apply_volume_zones(pods, claims_.cache().items(), volumes_.cache().items());
}

}  // namespace fitscale
