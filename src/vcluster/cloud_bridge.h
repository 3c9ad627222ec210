#pragma once
// Joins a cloud to the virtual cluster: every live instance of the CloudProvider becomes a Node
// after its boot delay (labels, allocatable from the catalog, providerID, Ready), and a Node
// whose instance is terminated is deleted. A Node deleted through the API stays deleted
// (its instance is not re-registered). Spot interruptions taint the node, mark the instance
// and terminate it after a short grace.
//
// Any CloudProvider works (the SimCloud, or an EC2 endpoint such as moto); `sim` is only needed
// for fault injection. All cloud calls go through this class, under its lock: the HTTP
// endpoints and the cluster's loop share one provider that need not be thread-safe.
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cloud/sim/sim_cloud.h"
#include "controller/interfaces.h"
#include "model/catalog.h"
#include "vcluster/object_store.h"

namespace fitscale::vcluster {

struct CloudBridgeOptions {
  std::string region = "us-east-1";
  // Seconds from launch to Node registration, by instance type.
  std::function<Seconds(const std::string& instance_type)> boot_delay = [](const std::string&) {
    return 1;
  };
  Seconds interruption_grace_s = 5;
};

class CloudBridge {
 public:
  CloudBridge(ObjectStore& store, CloudProvider& cloud, SimCloud* sim, const Catalog& catalog,
              const Clock& clock, CloudBridgeOptions options);

  // One pass: register booted instances, delete Nodes of terminated ones, finish interruptions.
  void tick();

  LaunchResult launch(const LaunchRequest& request);
  void terminate(const std::vector<std::string>& ids);
  std::vector<Instance> list_instances();  // with interruption notices this bridge issued
  // Changes whenever list_instances() would: the simulated cloud's generation (the bridge's
  // own interruption notices are marked on it too). nullopt: not known (an EC2 backend).
  std::optional<std::uint64_t> listing_generation();
  // Throws ApiError 501 without a SimCloud.
  void inject(const std::string& offering_key, const std::string& code, int count);
  // Throws ApiError 404 for an unknown or terminated instance.
  void interrupt(const std::string& instance_id);

  // The Node JSON for an instance (exposed for tests).
  nlohmann::json node_for(const Instance& instance) const;

 private:
  std::vector<Instance> live_instances_locked();

  ObjectStore& store_;
  CloudProvider& cloud_;
  SimCloud* sim_;
  const Catalog& catalog_;
  const Clock& clock_;
  CloudBridgeOptions options_;
  std::mutex mu_;
  std::set<std::string> registered_;           // instance ids that got a Node, ever
  std::map<std::string, Time> interruptions_;  // instance id -> terminate at
};

// Kubernetes quantity text for the model's units (milli-CPU, bytes, counts).
nlohmann::json resources_to_json(const Resources& r);

}  // namespace fitscale::vcluster
