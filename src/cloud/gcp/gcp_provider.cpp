#include "cloud/gcp/gcp_provider.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "cloud/common/encoding.h"
#include "cloud/common/json_field.h"
#include "cloud/common/node_name.h"
#include "cloud/common/price_cap.h"
#include "cloud/gcp/gce_error.h"

namespace fitscale::gcp {

using cloud::string_field;

namespace {

// GCE instance names: [a-z]([-a-z0-9]*[a-z0-9])?, at most 63 characters.
std::string instance_name_prefix(const std::string& cluster_name) {
  std::string s = label_value(cluster_name);
  std::replace(s.begin(), s.end(), '_', '-');
  if (s.empty() || s[0] < 'a' || s[0] > 'z') s = "n" + s;
  return s;
}

// createdVmCount of the operation's zone, or -1 when the operation does not say.
int created_count(const nlohmann::json& op, const std::string& zone) {
  if (!op.is_object() || !op.contains("instancesBulkInsertOperationMetadata")) return -1;
  const nlohmann::json& per = op["instancesBulkInsertOperationMetadata"]["perLocationStatus"];
  if (!per.is_object()) return -1;
  auto it = per.find("zones/" + zone);
  if (it == per.end() || !it->contains("createdVmCount") ||
      !(*it)["createdVmCount"].is_number_integer())
    return -1;
  return (*it)["createdVmCount"].get<int>();
}

}  // namespace

std::string GcpProvider::zone_path(const std::string& zone) const {
  return "/projects/" + options_.instance.project + "/zones/" + zone;
}

Instance GcpProvider::launched(const LaunchRequest& request, const std::string& name,
                               Time now) const {
  Instance made;
  made.id = name;
  made.instance_type = request.instance_type;
  made.zone = request.zone;
  made.capacity_type = request.capacity_type;
  made.provider_id = "gce://" + options_.instance.project + "/" + request.zone + "/" + name;
  made.pool = request.pool;
  made.owner_namespace = request.owner_namespace;
  made.job = request.job;
  made.launched_at = now;
  made.price_micros_per_hour = request.price_micros_per_hour;
  made.state = "pending";
  made.node_labels = request.node_labels;
  made.node_taints = request.node_taints;
  return made;
}

LaunchResult GcpProvider::launch(const LaunchRequest& request) {
  LaunchResult out;
  const std::string key =
      request.instance_type + "/" + request.zone + "/" + to_string(request.capacity_type);
  // Compute Engine has no launch-wide price cap (EC2 Fleet's MaxTotalPrice): enforce it here.
  const int count = cloud::count_within_price_cap(request, out);
  if (count <= 0) return out;
  if (request.all_or_nothing && count < request.count) {
    // A gang the cap cuts short is not launched at all.
    out.failures.back().count = request.count;
    return out;
  }
  const Time now = clock_.now();
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(count));
  const std::string prefix = instance_name_prefix(options_.instance.cluster_name);
  for (int i = 0; i < count; ++i)
    names.push_back(cloud::launch_node_name(prefix, request.client_token, i));
  const std::string path = zone_path(request.zone) +
                           "/instances/bulkInsert?requestId=" + request_id(request.client_token);
  try {
    nlohmann::json op =
        gce_.call("POST", path, bulk_insert_body(options_.instance, request, names, now).dump());
    // Not DONE after the waits: the instances are in flight, the listing follows them.
    const bool done = gce_.wait(op, options_.instance.project);
    int created = done ? created_count(op, request.zone) : -1;
    if (done && operation_failed(op)) {
      GceError e = operation_error(op);
      if (created <= 0 || request.all_or_nothing) {
        // minCount not reached: Compute Engine created none, or rolled back what it created.
        out.failures.push_back({key, count, e.code(), e.what(), is_capacity_error(e)});
        return out;
      }
      out.failures.push_back({key, count - created, e.code(), e.what(), is_capacity_error(e)});
    } else if (done && created >= 0 && created < count) {
      out.failures.push_back(
          {key, count - created, "MinCountNotReached",
           "bulkInsert created " + std::to_string(created) + " of " + std::to_string(count), true});
    }
    if (created >= 0 && created < count) {
      // Some were made: which ones, instances.get tells (404: not made).
      for (const auto& n : names) {
        try {
          gce_.call("GET", zone_path(request.zone) + "/instances/" + n);
        } catch (const GceError& e) {
          if (e.status() == 404) continue;
          throw;
        }
        zone_of_[n] = request.zone;
        out.launched.push_back(launched(request, n, now));
      }
      return out;
    }
    for (const auto& n : names) {
      zone_of_[n] = request.zone;
      out.launched.push_back(launched(request, n, now));
    }
  } catch (const GceError& e) {
    out.failures.push_back({key, count, e.code(), e.what(), is_capacity_error(e)});
  }
  return out;
}

void GcpProvider::terminate(const std::vector<std::string>& instance_ids) {
  for (const auto& id : instance_ids) {
    std::vector<std::string> zones;
    if (auto it = zone_of_.find(id); it != zone_of_.end()) {
      zones.push_back(it->second);
    } else {
      zones = options_.zones;  // not listed since a restart: the one zone that has it answers
    }
    for (const auto& zone : zones) {
      try {
        // Not waited for: the listing shows it stopping until it is gone.
        gce_.call("DELETE", zone_path(zone) + "/instances/" + id);
        break;
      } catch (const GceError& e) {
        if (e.status() == 404) continue;  // gone already, or another zone's
        throw;
      }
    }
    zone_of_.erase(id);
  }
}

std::vector<Instance> GcpProvider::list_instances() {
  std::vector<Instance> out;
  const std::set<std::string, std::less<>> zones(options_.zones.begin(), options_.zones.end());
  const std::string filter =
      std::string("labels.") + kLabelCluster + "=" + label_value(options_.instance.cluster_name);
  const std::string base = "/projects/" + options_.instance.project +
                           "/aggregated/instances?filter=" + cloud::form_escape(filter);
  std::string token;
  std::map<std::string, std::string> zone_of;
  for (int page = 0; page < 1000; ++page) {
    const nlohmann::json j =
        gce_.call("GET", token.empty() ? base : base + "&pageToken=" + cloud::form_escape(token));
    if (!j.is_object() || (j.contains("items") && !j["items"].is_object()))
      throw GceError(200, "BadListResponse", "no \"items\" map in the aggregated list");
    if (j.contains("items")) {
      for (auto it = j["items"].begin(); it != j["items"].end(); ++it) {
        // "zones/us-central1-a": {"instances": [...]} or {"warning": {"code":
        // "NO_RESULTS_ON_PAGE"}}
        const std::string zone = last_segment(it.key());
        if (!zones.empty() && zones.count(zone) == 0) continue;  // another provider's zone
        const nlohmann::json& list = (*it)["instances"];
        if (!list.is_array()) continue;
        for (const auto& gce : list) {
          if (auto inst = instance_from_gce(gce, options_.instance.cluster_name)) {
            inst->provider = options_.name;
            zone_of[inst->id] = inst->zone;
            out.push_back(std::move(*inst));
          }
        }
      }
    }
    token = string_field(j, "nextPageToken");
    if (token.empty()) break;
  }
  zone_of_ = std::move(zone_of);
  mark_preempted(out);
  return out;
}

void GcpProvider::mark_preempted(std::vector<Instance>& instances) {
  if (!options_.watch_preemptions) return;
  const bool any_spot = std::any_of(instances.begin(), instances.end(), [](const Instance& i) {
    return i.capacity_type == CapacityType::Spot && !i.interruption_notice;
  });
  if (!any_spot) return;
  // A preemption is a system operation on the instance, listed before the instance is gone.
  const std::string filter = "operationType=\"compute.instances.preempted\"";
  try {
    const nlohmann::json j =
        gce_.call("GET", "/projects/" + options_.instance.project +
                             "/aggregated/operations?filter=" + cloud::form_escape(filter));
    std::set<std::string, std::less<>> preempted;
    if (j.is_object() && j.contains("items") && j["items"].is_object()) {
      for (auto it = j["items"].begin(); it != j["items"].end(); ++it) {
        const nlohmann::json& scoped = *it;
        if (!scoped.contains("operations") || !scoped["operations"].is_array()) continue;
        for (const auto& op : scoped["operations"]) {
          if (string_field(op, "operationType") == "compute.instances.preempted")
            preempted.insert(last_segment(string_field(op, "targetLink")));
        }
      }
    }
    for (auto& i : instances) {
      if (preempted.count(i.id) != 0) i.interruption_notice = true;
    }
    preemption_error_.clear();
  } catch (const GceError& e) {
    preemption_error_ = e.what();  // the instances' own status still tells a preemption
  }
}

}  // namespace fitscale::gcp
