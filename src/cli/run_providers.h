#pragma once
// `providers:` for `fitscale run` (docs/clouds.md): one CloudProvider per entry, behind one
// MultiCloud that routes each launch by its offering's provider. Kinds: sim (the virtual
// cluster's cloud), static (the team's own nodes, found by label), azure (docs/azure.md), gcp
// (docs/gcp.md), aws (one region each).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cloud/sim/remote_sim_cloud.h"
#include "controller/interfaces.h"
#include "controller/multi_cloud.h"
#include "kube/kubeconfig.h"
#include "model/catalog.h"
#include "model/config.h"

namespace fitscale::cli {

class ConfiguredProviders {
 public:
  // Throws InputError naming the entry (providers[i]) for what cannot be built.
  ConfiguredProviders(const Config& config, const KubeConfig& kube, const Clock& clock);
  ~ConfiguredProviders();
  ConfiguredProviders(const ConfiguredProviders&) = delete;
  ConfiguredProviders& operator=(const ConfiguredProviders&) = delete;

  CloudProvider& provider() { return *multi_; }
  // The Nodes the view last observed: owned hardware is found among them.
  void nodes_observed(const std::vector<Node>& nodes);
  // The run's catalog: the AWS providers price the instances they list from it.
  void set_prices(const Catalog& catalog);

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
  std::unique_ptr<MultiCloud> multi_;
};

// How `fitscale run` reaches the virtual cluster's simulated cloud: beside the Kubernetes API,
// with the kubeconfig's credentials.
RemoteSimCloudOptions remote_sim_cloud_options(const KubeConfig& kube);

// `types` (the run's catalog) with the rows of each provider's own catalog (providers[].catalog,
// read with `read`): each row sells through that provider, in its region unless the row names
// one. Throws InputError naming the entry for a row of another provider.
std::vector<InstanceType> with_provider_catalogs(
    std::vector<InstanceType> types, const Config& config,
    const std::function<std::string(const std::string&)>& read);

// Every catalog row's provider must be a configured cloud (not owned hardware): a row of an
// unknown provider would be planned and could launch nowhere.
void check_catalog_providers(const std::vector<InstanceType>& types, const Config& config,
                             const std::string& source);

}  // namespace fitscale::cli
