#include "cloud/sim/sim_cloud_wire.h"

#include "model/error.h"

namespace fitscale {
namespace {

template <typename T>
T field(const nlohmann::json& j, const char* name, T fallback, const char* what) {
  if (!j.is_object()) throw InputError(std::string(what) + ": expected a JSON object");
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(std::string(what) + ": field " + name + ": wrong type (" + it->dump() + ")");
  }
}

nlohmann::json taints_to_json(const std::vector<Taint>& taints) {
  nlohmann::json out = nlohmann::json::array();
  for (const Taint& t : taints)
    out.push_back({{"key", t.key}, {"value", t.value}, {"effect", to_string(t.effect)}});
  return out;
}

std::vector<Taint> taints_from_json(const nlohmann::json& j, const char* what) {
  std::vector<Taint> out;
  const auto it = j.find("node_taints");
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_array()) throw InputError(std::string(what) + ": field node_taints: not a list");
  for (const auto& t : *it) {
    Taint taint;
    taint.key = field<std::string>(t, "key", "", what);
    taint.value = field<std::string>(t, "value", "", what);
    taint.effect = parse_taint_effect(field<std::string>(t, "effect", "NoSchedule", what));
    out.push_back(std::move(taint));
  }
  return out;
}

}  // namespace

CapacityType capacity_type_from_string(const std::string& s) {
  if (s == "spot") return CapacityType::Spot;
  if (s == "on-demand") return CapacityType::OnDemand;
  if (s == "reserved") return CapacityType::Reserved;
  throw InputError("capacity_type: expected \"spot\", \"on-demand\" or \"reserved\", got \"" + s +
                   "\"");
}

nlohmann::json instance_to_json(const Instance& i) {
  return {{"id", i.id},
          {"instance_type", i.instance_type},
          {"zone", i.zone},
          {"capacity_type", to_string(i.capacity_type)},
          {"state", i.state},
          {"provider_id", i.provider_id},
          {"launched_at", i.launched_at},
          {"price_micros_per_hour", i.price_micros_per_hour},
          {"pool", i.pool},
          {"owner_namespace", i.owner_namespace},
          {"job", i.job},
          {"interruption_notice", i.interruption_notice},
          {"tags", i.tags},
          {"node_labels", i.node_labels},
          {"node_taints", taints_to_json(i.node_taints)}};
}

Instance instance_from_json(const nlohmann::json& j) {
  const char* what = "instance";
  Instance i;
  i.id = field<std::string>(j, "id", "", what);
  i.instance_type = field<std::string>(j, "instance_type", "", what);
  i.zone = field<std::string>(j, "zone", "", what);
  i.capacity_type = capacity_type_from_string(field<std::string>(j, "capacity_type", "spot", what));
  i.state = field<std::string>(j, "state", "", what);
  i.provider_id = field<std::string>(j, "provider_id", "", what);
  i.launched_at = field<Time>(j, "launched_at", 0, what);
  i.price_micros_per_hour = field<Micros>(j, "price_micros_per_hour", 0, what);
  i.pool = field<std::string>(j, "pool", "", what);
  i.owner_namespace = field<std::string>(j, "owner_namespace", "", what);
  i.job = field<std::string>(j, "job", "", what);
  i.interruption_notice = field<bool>(j, "interruption_notice", false, what);
  i.tags = field<std::map<std::string, std::string>>(j, "tags", {}, what);
  for (auto& [k, v] : field<std::map<std::string, std::string>>(j, "node_labels", {}, what))
    i.node_labels.emplace(k, v);
  i.node_taints = taints_from_json(j, what);
  return i;
}

nlohmann::json launch_request_to_json(const LaunchRequest& r) {
  return {{"instance_type", r.instance_type},
          {"zone", r.zone},
          {"capacity_type", to_string(r.capacity_type)},
          {"count", r.count},
          {"pool", r.pool},
          {"owner_namespace", r.owner_namespace},
          {"job", r.job},
          {"client_token", r.client_token},
          {"price_micros_per_hour", r.price_micros_per_hour},
          {"node_labels", r.node_labels},
          {"node_taints", taints_to_json(r.node_taints)}};
}

LaunchRequest launch_request_from_json(const nlohmann::json& j) {
  const char* what = "launch request";
  LaunchRequest r;
  r.instance_type = field<std::string>(j, "instance_type", "", what);
  r.zone = field<std::string>(j, "zone", "", what);
  r.capacity_type = capacity_type_from_string(field<std::string>(j, "capacity_type", "spot", what));
  r.count = field<int>(j, "count", 1, what);
  r.pool = field<std::string>(j, "pool", "", what);
  r.owner_namespace = field<std::string>(j, "owner_namespace", "", what);
  r.job = field<std::string>(j, "job", "", what);
  r.client_token = field<std::string>(j, "client_token", "", what);
  r.price_micros_per_hour = field<Micros>(j, "price_micros_per_hour", 0, what);
  for (auto& [k, v] : field<std::map<std::string, std::string>>(j, "node_labels", {}, what))
    r.node_labels.emplace(k, v);
  r.node_taints = taints_from_json(j, what);
  if (r.instance_type.empty()) throw InputError("launch request: field instance_type is required");
  if (r.zone.empty()) throw InputError("launch request: field zone is required");
  return r;
}

nlohmann::json launch_result_to_json(const LaunchResult& r) {
  nlohmann::json launched = nlohmann::json::array();
  for (const auto& i : r.launched) launched.push_back(instance_to_json(i));
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& f : r.failures) {
    failures.push_back({{"offering_key", f.offering_key},
                        {"count", f.count},
                        {"code", f.code},
                        {"message", f.message},
                        {"capacity_error", f.capacity_error}});
  }
  return {{"launched", launched}, {"failures", failures}};
}

LaunchResult launch_result_from_json(const nlohmann::json& j) {
  LaunchResult r;
  for (const auto& i :
       field<nlohmann::json>(j, "launched", nlohmann::json::array(), "launch result")) {
    r.launched.push_back(instance_from_json(i));
  }
  for (const auto& f :
       field<nlohmann::json>(j, "failures", nlohmann::json::array(), "launch result")) {
    const char* what = "launch failure";
    LaunchFailure lf;
    lf.offering_key = field<std::string>(f, "offering_key", "", what);
    lf.count = field<int>(f, "count", 0, what);
    lf.code = field<std::string>(f, "code", "", what);
    lf.message = field<std::string>(f, "message", "", what);
    lf.capacity_error = field<bool>(f, "capacity_error", false, what);
    r.failures.push_back(std::move(lf));
  }
  return r;
}

}  // namespace fitscale
