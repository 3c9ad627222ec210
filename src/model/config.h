#pragma once
// The fitscale config file (YAML, camelCase keys). Every key is optional; the defaults below are
// what a user gets with no file at all, and docs/configuration.md lists every key with its
// default. Parsing is strict: an unknown key, a wrong type or an out-of-range value is an
// InputError naming the file, the line and the key path ("config.yaml:7:
// budgets.namespaces.research-a.usdPerJob: must be a number >= 0, got \"lots\"").
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/budget.h"
#include "model/labels.h"
#include "model/offering.h"
#include "model/pod.h"
#include "model/pool.h"
#include "model/reservation.h"
#include "model/time.h"

namespace fitscale {

// controller: how often the reconcile loop runs and how long a failed offering is avoided.
struct ControllerConfig {
  Seconds interval_s = 10;
  Seconds offering_backoff_s = 300;
};

// scaleDown: when fitscale removes nodes.
struct ScaleDownConfig {
  Seconds empty_after_s = 60;        // an empty node is removed after this long
  Seconds register_timeout_s = 900;  // an instance not registered by then is removed
  // A node NotReady this long (since its Ready condition changed) is removed, pods and all:
  // its kubelet is gone. 20m as cluster-autoscaler's --scale-down-unready-time.
  Seconds not_ready_after_s = 1200;
  // A node is never removed as empty this soon after its launch: kube-scheduler may not have
  // bound the pods it was launched for yet (a burst of thousands keeps it busy for minutes).
  Seconds delay_after_launch_s = 300;
  // Room on a node whose launch job ended is closed to new pods (the fitscale.io/reclaim taint,
  // docs/planner.md) while it costs more than this many times what the pending pods that would
  // fill it cost on new nodes. 0: never.
  double reclaim_factor = 2.0;
};

// alerts: budget threshold webhooks (Slack-compatible {"text": ...}).
struct AlertsConfig {
  std::string webhook;                          // empty = no alerts are posted
  std::vector<int> thresholds = {50, 80, 100};  // percent of a period budget, ascending
};

// simulator.insufficientCapacity[]: the simulated cloud answers InsufficientInstanceCapacity for
// this offering from `from_s` until `until_s` (seconds since the start of the simulation).
struct CapacityOutage {
  std::string offering;  // "p3.16xlarge/us-east-1a/spot" (Offering::key())
  std::string instance_type;
  std::string zone;
  CapacityType capacity_type = CapacityType::Spot;
  Seconds from_s = 0;
  std::optional<Seconds> until_s;  // nullopt = until the end of the run
};

struct SimulatorConfig {
  Seconds boot_delay_cpu_s = 90;   // launch -> Ready for an instance without GPUs
  Seconds boot_delay_gpu_s = 180;  // ... with GPUs (driver install, larger AMI)
  bool interruptions = true;       // spot interruptions from the catalog's hazard
  std::vector<CapacityOutage> insufficient_capacity;
};

enum class AwsMode { Fleet, Asg };
const char* to_string(AwsMode m);  // "fleet", "asg"

struct LaunchTemplateRef {
  std::string name;
  std::string id;
  std::string version;  // empty = $Default
};

struct AwsConfig {
  std::string endpoint;  // empty = the public EC2 endpoint of the region; set for moto
  std::string region;    // empty = the top-level `region`
  AwsMode mode = AwsMode::Fleet;
  LaunchTemplateRef launch_template;
  std::map<std::string, std::string> subnets;  // zone -> subnet id
  std::string asg_tag;                         // tag key that marks fitscale's ASGs (mode asg)
  std::string credentials_profile;             // empty = the default credential chain
  // catalog.instanceTypes: EC2 type names or wildcards ("g5.*") fitscale asks the API about;
  // empty = every type in the region. catalog.spotPriceRefresh: 0 = prices read at start only.
  std::vector<std::string> catalog_instance_types;
  Seconds spot_price_refresh_s = 600;
  // SQS queue fed by EventBridge with spot interruption warnings, rebalance recommendations and
  // instance state changes; empty = none.
  std::string interruption_queue;
  // nodeBootstrap: how launched nodes learn their pool's labels and taints (docs/aws.md):
  // "nodeadm" (fitscale adds them to the launch template's user data, Amazon Linux 2023) or
  // "none" (the launch template's own bootstrap says them).
  bool nodeadm_bootstrap = true;
};

// providers[].azure: one Azure subscription and resource group (docs/azure.md).
struct AzureConfig {
  std::string subscription_id;
  std::string resource_group;
  std::string tenant_id;
  std::string client_id;
  std::string client_secret_file;  // the client secret is read from this file, never the config
  std::string endpoint;            // empty = https://management.azure.com (set for tests)
  std::string login_endpoint;      // empty = https://login.microsoftonline.com
  std::string subnet_id;           // the NIC's subnet (a full ARM resource id)
  std::string image_id;            // a full ARM image id, or "publisher:offer:sku:version"
  std::string admin_username = "fitscale";
  std::string ssh_public_key;
  std::string custom_data;  // cloud-init for the node's bootstrap (base64 is done by fitscale)
};

// providers[].gcp: one Compute Engine project (docs/gcp.md).
struct GcpConfig {
  std::string project;
  // A service-account key file (JSON) read at start; empty = tokens from the metadata server of
  // the VM fitscale runs on.
  std::string credentials_file;
  std::string metadata_endpoint;  // empty = http://metadata.google.internal (set for tests)
  std::string endpoint;           // empty = https://compute.googleapis.com/compute/v1
  std::string image;              // the boot disk's source image
  std::string network;            // empty = global/networks/default
  std::string subnetwork;         // "regions/REGION/subnetworks/NAME"; empty = none
  std::string service_account;    // the email the nodes run as; empty = none
  std::string startup_script;     // metadata startup-script joining the node to the cluster
  std::int64_t boot_disk_gb = 100;
};

// providers[].aws (kind aws): what differs per region from the top-level `aws:` (docs/clouds.md).
struct ProviderAwsConfig {
  std::string endpoint;                        // empty = the top-level aws.endpoint
  std::string credentials_profile;             // empty = the top-level aws.credentialsProfile
  std::map<std::string, std::string> subnets;  // zone -> subnet id; empty = the top-level's
};

enum class ProviderKind { Sim, Aws, Static, Azure, Gcp };
const char* to_string(ProviderKind k);  // "sim", "aws", "static", "azure", "gcp"

// providers[].nodes (kind static, `fitscale simulate` only): owned machines the simulation
// starts with, as count x catalog type.
struct OwnedNodes {
  std::string instance_type;
  std::int64_t count = 0;
};

// One entry of `providers:` (docs/clouds.md). Empty list = the one cloud of `--provider`.
struct ProviderConfig {
  std::string name;  // the fitscale.io/provider label; what catalog rows and pools name
  ProviderKind kind = ProviderKind::Sim;
  std::string region;              // empty = the top-level region
  std::vector<std::string> zones;  // empty = the top-level zones
  // kind static: which Nodes are the team's own machines, and what one costs per hour.
  Labels node_selector;
  double usd_per_hour = 0;
  std::vector<OwnedNodes> nodes;
  AzureConfig azure;      // kind azure
  GcpConfig gcp;          // kind gcp
  ProviderAwsConfig aws;  // kind aws
  // The provider's own catalog CSV: its rows sell through this provider, in its region
  // (docs/clouds.md). Empty = rows of the run's catalog that name it (or name none).
  std::string catalog = {};
};

struct MetricsConfig {
  std::string address = "127.0.0.1:8080";  // HTTP /metrics and /healthz
};

enum class LogFormat { Text, Json };
const char* to_string(LogFormat f);  // "text", "json"

// `policy:`: fitscale itself, or one of the approximations of other autoscalers that
// `fitscale simulate` compares it against (docs/simulator.md, "Baselines"; simulator only).
enum class PolicyKind { Fitscale, ClusterAutoscaler, Karpenter };
const char* to_string(PolicyKind k);

struct Config {
  std::string source = "<defaults>";  // file it came from, for messages
  PolicyKind policy = PolicyKind::Fitscale;
  std::vector<std::string> zones = {"us-east-1a", "us-east-1b", "us-east-1c"};
  std::string region = "us-east-1";
  std::string pool = "default";
  // `pools:`; empty = the default pool (default_pool(pool)), docs/pools.md.
  std::vector<Pool> pools;
  std::string cluster_name = "fitscale";  // tag on every instance; found again after a restart
  ControllerConfig controller;
  ScaleDownConfig scale_down;
  AllocatableRule allocatable;  // maxPods, daemonsetOverhead
  // nullopt when the file has no `budgets` key: safe_default_budgets() apply. When present, an
  // unset key means no cap at that level except what `budgets.default` gives.
  std::optional<Budgets> budgets;
  AlertsConfig alerts;
  SimulatorConfig simulator;
  AwsConfig aws;
  std::vector<ProviderConfig> providers = {};
  // `reservations:`: capacity bought ahead, for `simulate` and `plan` (`run` asks EC2 for them).
  std::vector<Reservation> reservations = {};
  MetricsConfig metrics;
  LogFormat log_format = LogFormat::Text;
};

// Parses a config document; `source` names it in errors ("config.yaml"). An empty document is
// the default config. Throws InputError.
// Also checks that every zone is in launch_region().
Config parse_config(std::string_view yaml, std::string_view source);

// Where fitscale launches: aws.region, else the top-level region.
const std::string& launch_region(const Config& c);
// "us-east-1a" and the Local Zone "us-east-1-bos-1a" are in us-east-1; "us-west-2a" is not.
bool zone_in_region(std::string_view zone, std::string_view region);
// The region whose prices the embedded catalog holds (data/aws-us-east-1.csv).
inline constexpr const char* kEmbeddedCatalogRegion = "us-east-1";
// Throws InputError naming the key when the launch region is not the embedded catalog's and no
// --catalog file gives prices for it: nothing is ever priced at another region's prices.
void require_catalog_for_region(const Config& c, bool catalog_file_given);
// Reads and parses a file (the one place below cli/ that reads a file: the config is an edge).
Config load_config_file(const std::string& path);

// The budgets that apply: the file's, or safe_default_budgets() when it has no `budgets` key.
Budgets budgets_or_defaults(const Config& config);

}  // namespace fitscale
