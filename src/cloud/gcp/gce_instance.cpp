#include "cloud/gcp/gce_instance.h"

#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "cloud/common/json_field.h"

namespace fitscale::gcp {

using cloud::string_field;

namespace {

const nlohmann::json& at(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::int64_t integer_or_zero(const std::string& s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() ? v : 0;
}

std::uint64_t fnv1a(const std::string& s, std::uint64_t h) {
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

// The machine families whose GPUs are part of the machine type: they cannot live-migrate.
bool has_bundled_gpus(const std::string& machine_type) {
  for (const char* family : {"a2-", "a3-", "a4-", "g2-", "g4-"}) {
    if (machine_type.rfind(family, 0) == 0) return true;
  }
  return false;
}

}  // namespace

std::string label_value(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_') {
      out.push_back(ch);
    } else if (c >= 'A' && c <= 'Z') {
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else {
      out.push_back('_');
    }
  }
  return out.substr(0, 63);
}

std::string last_segment(const std::string& url) {
  const std::size_t slash = url.rfind('/');
  return slash == std::string::npos ? url : url.substr(slash + 1);
}

std::string request_id(const std::string& client_token) {
  const std::uint64_t a = fnv1a(client_token, 14695981039346656037ULL);
  const std::uint64_t b = fnv1a(client_token + "#", a);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (int i = 0; i < 16; ++i) hex += kHex[(a >> (4 * i)) & 15];
  for (int i = 0; i < 16; ++i) hex += kHex[(b >> (4 * i)) & 15];
  hex[12] = '4';  // a version-4 shaped UUID: bulkInsert accepts any UUID but the zero one
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

nlohmann::json bulk_insert_body(const InstanceTemplate& t, const LaunchRequest& request,
                                const std::vector<std::string>& names, Time launched_at) {
  using nlohmann::json;
  json per_instance = json::object();
  for (const auto& n : names) per_instance[n] = json::object();
  json scheduling;
  if (request.capacity_type == CapacityType::Spot) {
    // DELETE, not STOP: a preempted node is gone for good (a stopped one would keep its disk,
    // cost storage and count against quota), as Azure's eviction policy Delete.
    scheduling = {{"provisioningModel", "SPOT"},
                  {"instanceTerminationAction", "DELETE"},
                  {"automaticRestart", false},
                  {"onHostMaintenance", "TERMINATE"}};
  } else {
    scheduling = {{"provisioningModel", "STANDARD"}, {"automaticRestart", true}};
    if (has_bundled_gpus(request.instance_type)) scheduling["onHostMaintenance"] = "TERMINATE";
  }
  json nic = json::object();
  nic["network"] = t.network.empty() ? "global/networks/default" : t.network;
  if (!t.subnetwork.empty()) nic["subnetwork"] = t.subnetwork;
  json properties = {{"machineType", request.instance_type},
                     {"labels",
                      {{kLabelCluster, label_value(t.cluster_name)},
                       {kLabelPool, label_value(request.pool)},
                       {kLabelNamespace, label_value(request.owner_namespace)},
                       {kLabelJob, label_value(request.job)},
                       {kLabelPrice, std::to_string(request.price_micros_per_hour)},
                       {kLabelLaunchedAt, std::to_string(launched_at)}}},
                     {"scheduling", scheduling},
                     {"disks", json::array({{{"boot", true},
                                             {"autoDelete", true},
                                             {"initializeParams",
                                              {{"sourceImage", t.source_image},
                                               {"diskSizeGb", std::to_string(t.boot_disk_gb)}}}}})},
                     {"networkInterfaces", json::array({nic})}};
  if (!t.startup_script.empty()) {
    properties["metadata"] = {
        {"items", json::array({{{"key", "startup-script"}, {"value", t.startup_script}}})}};
  }
  if (!t.service_account.empty()) {
    properties["serviceAccounts"] = json::array(
        {{{"email", t.service_account},
          {"scopes", json::array({"https://www.googleapis.com/auth/cloud-platform"})}}});
  }
  const auto count = static_cast<std::int64_t>(names.size());
  return {{"count", count},
          {"minCount", request.all_or_nothing ? count : std::int64_t{1}},
          {"perInstanceProperties", per_instance},
          {"instanceProperties", properties}};
}

std::optional<Instance> instance_from_gce(const nlohmann::json& gce,
                                          const std::string& cluster_name) {
  const nlohmann::json& labels = at(gce, "labels");
  if (string_field(labels, kLabelCluster) != label_value(cluster_name)) return std::nullopt;
  Instance i;
  i.id = string_field(gce, "name");
  if (i.id.empty()) return std::nullopt;
  i.instance_type = last_segment(string_field(gce, "machineType"));
  i.zone = last_segment(string_field(gce, "zone"));
  const nlohmann::json& scheduling = at(gce, "scheduling");
  const bool spot =
      string_field(scheduling, "provisioningModel") == "SPOT" ||
      (at(scheduling, "preemptible").is_boolean() && at(scheduling, "preemptible").get<bool>());
  i.capacity_type = spot ? CapacityType::Spot : CapacityType::OnDemand;
  const std::string status = string_field(gce, "status");
  if (status == "RUNNING") {
    i.state = "running";
  } else if (status == "PROVISIONING" || status == "STAGING" || status.empty()) {
    i.state = "pending";
  } else {
    // STOPPING, SUSPENDING, SUSPENDED, STOPPED, TERMINATED, REPAIRING: going, or gone. fitscale
    // never stops its instances, so a Spot one in these states is being preempted.
    i.state = "shutting-down";
    i.interruption_notice = spot && status != "REPAIRING";
  }
  // What the GCE cloud provider sets as the Node's spec.providerID: gce://project/zone/name.
  const std::string self = string_field(gce, "selfLink");
  const std::size_t p = self.find("/projects/");
  const std::string project =
      p == std::string::npos ? "" : self.substr(p + 10, self.find('/', p + 10) - (p + 10));
  i.provider_id = "gce://" + project + "/" + i.zone + "/" + i.id;
  i.launched_at = integer_or_zero(string_field(labels, kLabelLaunchedAt));
  i.price_micros_per_hour = integer_or_zero(string_field(labels, kLabelPrice));
  i.pool = string_field(labels, kLabelPool);
  i.owner_namespace = string_field(labels, kLabelNamespace);
  i.job = string_field(labels, kLabelJob);
  if (labels.is_object()) {
    for (auto it = labels.begin(); it != labels.end(); ++it) {
      if (it->is_string()) i.tags[it.key()] = it->get<std::string>();
    }
  }
  return i;
}

}  // namespace fitscale::gcp
