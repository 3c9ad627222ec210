#pragma once
// Compute Engine as a CloudProvider (docs/gcp.md): one instances.bulkInsert per launch in the
// offering's zone (minCount = count for a gang: all or none), Spot with termination action
// DELETE, the operation waited for (zoneOperations.wait); instances found by the cluster's label
// (instances.aggregatedList with a filter), preemptions noticed from the instance's status and
// from compute.instances.preempted operations; deleted by instances.delete. Capacity and quota
// errors back the offering off; rate limits are retried (GceClient).
#include <map>
#include <string>
#include <vector>

#include "cloud/gcp/gce_client.h"
#include "cloud/gcp/gce_instance.h"
#include "controller/interfaces.h"

namespace fitscale::gcp {

struct GcpProviderOptions {
  std::string name = "gcp";        // the provider's name (providers[].name)
  std::vector<std::string> zones;  // its zones: listing keeps only these; terminate tries them
  bool watch_preemptions = true;   // read compute.instances.preempted operations when listing Spot
  InstanceTemplate instance;
};

class GcpProvider final : public CloudProvider {
 public:
  GcpProvider(GcpProviderOptions options, GceClient& gce, const Clock& clock)
      : options_(std::move(options)), gce_(gce), clock_(clock) {}

  std::string name() const override { return options_.name; }
  LaunchResult launch(const LaunchRequest& request) override;
  void terminate(const std::vector<std::string>& instance_ids) override;
  // Every instance of the project labelled with the cluster's name in the provider's zones (all
  // pages). Throws GceError when the listing fails: the controller then acts on nothing this loop.
  std::vector<Instance> list_instances() override;

  // The last error reading preempted operations ("" = none): the listing goes on without them.
  const std::string& preemption_error() const { return preemption_error_; }

 private:
  std::string zone_path(const std::string& zone) const;
  Instance launched(const LaunchRequest& request, const std::string& name, Time now) const;
  void mark_preempted(std::vector<Instance>& instances);
  GcpProviderOptions options_;
  GceClient& gce_;
  const Clock& clock_;
  std::map<std::string, std::string> zone_of_;  // instance name -> zone, from launches and lists
  std::string preemption_error_;
};

}  // namespace fitscale::gcp
