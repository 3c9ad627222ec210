#pragma once
// The translations between fitscale and a Compute Engine instance (docs/gcp.md): the body of
// instances.bulkInsert for one launch, and the Instance a listed GCE instance stands for. Pure,
// so recorded answers test them without a server.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "controller/interfaces.h"

namespace fitscale::gcp {

// Label keys fitscale puts on its instances; the cluster label is how they are found after a
// restart (instances.aggregatedList with a filter on it).
inline constexpr const char* kLabelCluster = "fitscale-cluster";
inline constexpr const char* kLabelPool = "fitscale-pool";
inline constexpr const char* kLabelNamespace = "fitscale-namespace";
inline constexpr const char* kLabelJob = "fitscale-job";
inline constexpr const char* kLabelPrice = "fitscale-price-micros";
inline constexpr const char* kLabelLaunchedAt = "fitscale-launched-at";

struct InstanceTemplate {
  std::string cluster_name;
  std::string project;
  std::string source_image;     // "projects/debian-cloud/global/images/family/debian-12", ...
  std::string network;          // "global/networks/default" or a URL; empty: the default network
  std::string subnetwork;       // "regions/us-central1/subnetworks/nodes"; empty: none
  std::string service_account;  // email the node runs as; empty: none
  std::string startup_script;   // metadata startup-script (joins the node to the cluster)
  std::int64_t boot_disk_gb = 100;
};

// A GCE label value: lower-case letters, digits, '-' and '_' only, at most 63 characters. Other
// characters become '_' (a job "train.v2" is labelled "train_v2").
std::string label_value(const std::string& s);

// The bulkInsert body creating `names` (perInstanceProperties, so a retried launch names the same
// instances): count = names, minCount = count for an all-or-nothing launch (a gang: all or none),
// else 1; Spot: scheduling.provisioningModel SPOT with instanceTerminationAction DELETE (a
// preempted node is deleted, not left stopped with its disk); the cluster's labels.
nlohmann::json bulk_insert_body(const InstanceTemplate& t, const LaunchRequest& request,
                                const std::vector<std::string>& names, Time launched_at);

// The Instance of a listed GCE instance, or nullopt when it is not this cluster's. Status
// PROVISIONING/STAGING -> pending, RUNNING -> running, STOPPING/SUSPENDING/SUSPENDED/STOPPED/
// TERMINATED -> shutting-down; a Spot instance that is stopping or terminated is being preempted
// (interruption_notice).
std::optional<Instance> instance_from_gce(const nlohmann::json& gce,
                                          const std::string& cluster_name);

// The last path segment of a URL ("https://.../zones/us-central1-a" -> "us-central1-a").
std::string last_segment(const std::string& url);

// A request id (a UUID, as bulkInsert's requestId wants) derived from the launch's client token:
// a retried launch sends the same one and Compute Engine does not run it twice.
std::string request_id(const std::string& client_token);

}  // namespace fitscale::gcp
