#include "cloud/azure/azure_vm.h"

#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "cloud/common/encoding.h"
#include "cloud/common/json_field.h"
#include "model/base64.h"

namespace fitscale::azure {
namespace {

std::int64_t integer_or_zero(const std::string& s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() ? v : 0;
}

std::string str(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const nlohmann::json& at(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

}  // namespace

std::optional<std::string> zone_number(const std::string& zone, const std::string& location) {
  // AKS labels topology.kubernetes.io/zone "<location>-<n>"; a regional VM has zone "0".
  if (zone.size() <= location.size() + 1 || zone.compare(0, location.size(), location) != 0 ||
      zone[location.size()] != '-')
    return std::nullopt;
  std::string n = zone.substr(location.size() + 1);
  if (n.empty() || n == "0" || n.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return n;
}

nlohmann::json vm_body(const VmTemplate& t, const LaunchRequest& request, const std::string& name,
                       Time launched_at) {
  using nlohmann::json;
  json image;
  if (t.image.rfind("/subscriptions/", 0) == 0) {
    image["id"] = t.image;
  } else {
    // publisher:offer:sku:version (the az CLI's URN).
    std::string parts[4];
    std::size_t k = 0;
    for (const char c : t.image) {
      if (c == ':' && k < 3) {
        ++k;
      } else {
        parts[k] += c;
      }
    }
    image = {{"publisher", parts[0]},
             {"offer", parts[1]},
             {"sku", parts[2]},
             {"version", parts[3].empty() ? "latest" : parts[3]}};
  }
  json os_profile = {{"computerName", name}, {"adminUsername", t.admin_username}};
  if (!t.ssh_public_key.empty()) {
    os_profile["linuxConfiguration"] = {
        {"disablePasswordAuthentication", true},
        {"ssh",
         {{"publicKeys",
           json::array({{{"path", "/home/" + t.admin_username + "/.ssh/authorized_keys"},
                         {"keyData", t.ssh_public_key}}})}}}};
  }
  if (!t.custom_data.empty()) os_profile["customData"] = base64_encode(t.custom_data);
  json ip_config = {{"name", name + "-ip"}, {"properties", {{"primary", true}}}};
  if (!t.subnet_id.empty()) ip_config["properties"]["subnet"] = {{"id", t.subnet_id}};
  json properties = {{"hardwareProfile", {{"vmSize", request.instance_type}}},
                     {"storageProfile",
                      {{"imageReference", image},
                       {"osDisk",
                        {{"createOption", "FromImage"},
                         {"deleteOption", "Delete"},
                         {"managedDisk", {{"storageAccountType", "Premium_LRS"}}}}}}},
                     {"osProfile", os_profile},
                     {"networkProfile",
                      {{"networkApiVersion", t.network_api_version},
                       {"networkInterfaceConfigurations",
                        json::array({{{"name", name + "-nic"},
                                      {"properties",
                                       {{"primary", true},
                                        {"deleteOption", "Delete"},
                                        {"ipConfigurations", json::array({ip_config})}}}}})}}}};
  if (request.capacity_type == CapacityType::Spot) {
    properties["priority"] = "Spot";
    // Delete, not Deallocate: an evicted node is gone for good (a deallocated one would keep its
    // disk, cost storage and count against quota); -1: never evicted for price.
    properties["evictionPolicy"] = "Delete";
    properties["billingProfile"] = {{"maxPrice", -1}};
  } else {
    properties["priority"] = "Regular";
  }
  json body = {{"location", t.location},
               {"tags",
                {{kTagCluster, t.cluster_name},
                 {kTagPool, request.pool},
                 {kTagNamespace, request.owner_namespace},
                 {kTagJob, request.job},
                 {kTagPrice, std::to_string(request.price_micros_per_hour)},
                 {kTagLaunchedAt, std::to_string(launched_at)}}},
               {"properties", properties}};
  if (const auto z = zone_number(request.zone, t.location)) body["zones"] = json::array({*z});
  return body;
}

std::optional<Instance> instance_from_vm(const nlohmann::json& vm,
                                         const std::string& cluster_name) {
  const nlohmann::json& tags = at(vm, "tags");
  if (cloud::string_field(tags, kTagCluster) != cluster_name) return std::nullopt;
  const nlohmann::json& props = at(vm, "properties");
  Instance i;
  i.id = str(vm, "name");
  if (i.id.empty()) return std::nullopt;
  i.instance_type = str(at(props, "hardwareProfile"), "vmSize");
  const std::string location = str(vm, "location");
  const nlohmann::json& zones = at(vm, "zones");
  i.zone = zones.is_array() && !zones.empty() && zones[0].is_string()
               ? location + "-" + zones[0].get<std::string>()
               : location;
  i.capacity_type = str(props, "priority") == "Spot" ? CapacityType::Spot : CapacityType::OnDemand;
  const std::string state = str(props, "provisioningState");
  i.state = state == "Succeeded"                       ? "running"
            : state == "Deleting"                      ? "shutting-down"
            : state == "Failed" || state == "Canceled" ? "failed"
                                                       : "pending";
  // What the Azure cloud provider sets as the Node's spec.providerID.
  const std::string id = str(vm, "id");
  i.provider_id = "azure://" + id;
  i.launched_at = integer_or_zero(cloud::string_field(tags, kTagLaunchedAt));
  i.price_micros_per_hour = integer_or_zero(cloud::string_field(tags, kTagPrice));
  i.pool = cloud::string_field(tags, kTagPool);
  i.owner_namespace = cloud::string_field(tags, kTagNamespace);
  i.job = cloud::string_field(tags, kTagJob);
  if (tags.is_object()) {
    for (auto it = tags.begin(); it != tags.end(); ++it) {
      if (it->is_string()) i.tags[it.key()] = it->get<std::string>();
    }
  }
  return i;
}

}  // namespace fitscale::azure
