#pragma once
// The two translations between fitscale and a Microsoft.Compute virtual machine (docs/azure.md):
// the body of VirtualMachines_CreateOrUpdate for one node of a launch, and the Instance a listed
// VM stands for. Pure, so the published examples test them without a server.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "controller/interfaces.h"

namespace fitscale::azure {

// Tag keys fitscale puts on its VMs; the cluster tag is how they are found after a restart.
inline constexpr const char* kTagCluster = "fitscale-cluster";
inline constexpr const char* kTagPool = "fitscale-pool";
inline constexpr const char* kTagNamespace = "fitscale-namespace";
inline constexpr const char* kTagJob = "fitscale-job";
inline constexpr const char* kTagPrice = "fitscale-price-micros";
inline constexpr const char* kTagLaunchedAt = "fitscale-launched-at";

struct VmTemplate {
  std::string cluster_name;
  std::string location;   // "eastus"
  std::string subnet_id;  // the NIC's subnet (ARM id)
  std::string image;      // an ARM image id, or "publisher:offer:sku:version"
  std::string admin_username = "fitscale";
  std::string ssh_public_key;
  std::string custom_data;  // plain text; base64-encoded into the body
  std::string network_api_version = "2022-11-01";
};

// The zone number of a fitscale zone ("eastus-2" -> "2"); nullopt for a regional offering.
std::optional<std::string> zone_number(const std::string& zone, const std::string& location);

// The PUT body for one VM of `request`: Spot priority with eviction policy Delete and
// billingProfile.maxPrice -1 (pay at most the on-demand price, never evicted for price) unless
// the request is on-demand; its zone; the NIC, OS disk and public IP deleted with the VM; the
// cluster's tags.
nlohmann::json vm_body(const VmTemplate& t, const LaunchRequest& request, const std::string& name,
                       Time launched_at);

// The Instance of a listed VM, or nullopt when it is not this cluster's (no matching tag).
std::optional<Instance> instance_from_vm(const nlohmann::json& vm, const std::string& cluster_name);

}  // namespace fitscale::azure
