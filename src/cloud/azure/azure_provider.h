#pragma once
// Azure virtual machines as a CloudProvider (docs/azure.md): one Microsoft.Compute VM per node,
// created by VirtualMachines_CreateOrUpdate in one resource group, listed by the cluster's tag,
// deleted by VirtualMachines_Delete (forceDeletion). Capacity and quota errors back the offering
// off; 429s are waited out; long-running operations are polled (ArmClient).
#include <string>
#include <vector>

#include "cloud/azure/arm_client.h"
#include "cloud/azure/azure_vm.h"
#include "controller/interfaces.h"

namespace fitscale::azure {

struct AzureProviderOptions {
  std::string name = "azure";  // the provider's name (providers[].name)
  std::string subscription_id;
  std::string resource_group;
  std::string api_version = "2024-03-01";
  VmTemplate vm;
};

class AzureProvider final : public CloudProvider {
 public:
  AzureProvider(AzureProviderOptions options, ArmClient& arm, const Clock& clock)
      : options_(std::move(options)), arm_(arm), clock_(clock) {}

  std::string name() const override { return options_.name; }
  LaunchResult launch(const LaunchRequest& request) override;
  void terminate(const std::vector<std::string>& instance_ids) override;
  // Every VM of the resource group tagged with the cluster's name (all pages). Throws ArmError
  // when the listing fails: the controller then acts on nothing this loop.
  std::vector<Instance> list_instances() override;

  // ".../resourceGroups/RG/providers/Microsoft.Compute/virtualMachines"
  std::string vms_path() const;

 private:
  AzureProviderOptions options_;
  ArmClient& arm_;
  const Clock& clock_;
};

}  // namespace fitscale::azure
