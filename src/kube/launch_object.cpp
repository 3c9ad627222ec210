#include "kube/launch_object.h"

#include <cmath>

#include "model/error.h"

namespace fitscale {

using nlohmann::json;

namespace {

std::string str(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

json ref(const std::string& ns, const std::string& name) {
  json j = {{"name", name}};
  if (!ns.empty()) j["namespace"] = ns;
  return j;
}

}  // namespace

json launch_object(const LaunchRecord& r) {
  json pods = json::array();
  for (const auto& key : r.pods) {
    auto slash = key.find('/');
    pods.push_back(slash == std::string::npos ? ref("", key)
                                              : ref(key.substr(0, slash), key.substr(slash + 1)));
  }
  json spec = {{"pool", r.pool},
               {"offering",
                {{"provider", r.provider},
                 {"instanceType", r.instance_type},
                 {"zone", r.zone},
                 {"capacityType", to_string(r.capacity_type)}}},
               // Dollars, rounded to the micro-dollar the ledger counts in.
               {"usdPerHour", std::round(static_cast<double>(r.price_micros_per_hour)) / 1e6},
               {"instanceID", r.instance_id},
               {"podCount", r.pod_count},
               {"pods", std::move(pods)}};
  if (!r.job_name.empty()) spec["job"] = ref(r.job_namespace, r.job_name);
  return {{"apiVersion", "fitscale.io/v1alpha1"},
          {"kind", "Launch"},
          {"metadata",
           {{"name", r.name},
            {"labels", {{"fitscale.io/pool", r.pool}}},
            {"annotations", {{"fitscale.io/instance-id", r.instance_id}}}}},
          {"spec", std::move(spec)}};
}

json launch_status_patch(const LaunchStatus& s) {
  json conditions = json::array();
  for (const auto& c : s.conditions) {
    conditions.push_back({{"type", c.type},
                          {"status", c.status},
                          {"reason", c.reason},
                          {"message", c.message},
                          {"lastTransitionTime", format_rfc3339(c.last_transition)}});
  }
  json status = {{"conditions", std::move(conditions)}};
  if (!s.node_name.empty()) status["nodeName"] = s.node_name;
  if (!s.provider_id.empty()) status["providerID"] = s.provider_id;
  return {{"status", std::move(status)}};
}

LaunchStatus launch_status_from(const json& object) {
  LaunchStatus s;
  if (!object.is_object()) return s;
  auto st = object.find("status");
  if (st == object.end() || !st->is_object()) return s;
  s.node_name = str(*st, "nodeName");
  s.provider_id = str(*st, "providerID");
  auto conds = st->find("conditions");
  if (conds == st->end() || !conds->is_array()) return s;
  for (const auto& c : *conds) {
    if (!c.is_object()) continue;
    LaunchCondition lc{str(c, "type"), str(c, "status"), str(c, "reason"), str(c, "message"), 0};
    try {
      lc.last_transition = parse_rfc3339(str(c, "lastTransitionTime"));
    } catch (const InputError&) {
      lc.last_transition = 0;
    }
    s.conditions.push_back(std::move(lc));
  }
  return s;
}

}  // namespace fitscale
