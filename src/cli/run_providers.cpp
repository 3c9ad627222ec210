#include "cli/run_providers.h"

#include <mutex>
#include <optional>
#include <set>

#include "cloud/aws/curl_transport.h"
#include "cloud/azure/arm_client.h"
#include "cloud/azure/azure_provider.h"
#include "cloud/azure/client_secret_credential.h"
#include "cloud/sim/remote_sim_cloud.h"
#include "cloud/static/static_provider.h"
#include "model/error.h"
#include "model/file_text.h"

namespace fitscale::cli {

namespace {

// The view's last Nodes, read by the static providers when the controller lists: one loop
// behind at most (the controller lists the cloud before it observes the cluster).
class NodeCache {
 public:
  void set(const std::vector<Node>& nodes) {
    std::lock_guard lock(mu_);
    nodes_ = nodes;
  }
  std::optional<std::vector<Node>> get() const {
    std::lock_guard lock(mu_);
    return nodes_;
  }

 private:
  mutable std::mutex mu_;
  std::optional<std::vector<Node>> nodes_;
};

struct AzureStack {
  aws::CurlTransport transport;
  aws::ThreadSleeper sleeper;
  std::unique_ptr<azure::ClientSecretCredential> credential;
  std::unique_ptr<azure::ArmClient> arm;
  std::unique_ptr<azure::AzureProvider> provider;
};

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

RemoteSimCloudOptions remote_sim_cloud_options(const KubeConfig& kube) {
  RemoteSimCloudOptions o;
  o.base_url = kube.server;
  o.bearer_token = kube.token;
  o.ca_pem = kube.ca_pem;
  o.client_cert_pem = kube.client_cert_pem;
  o.client_key_pem = kube.client_key_pem;
  o.insecure_skip_tls_verify = kube.insecure_skip_tls_verify;
  return o;
}

struct ConfiguredProviders::Parts {
  NodeCache nodes;
  std::vector<std::unique_ptr<CloudProvider>> clouds;
  std::vector<std::unique_ptr<AzureStack>> azure;
};

ConfiguredProviders::ConfiguredProviders(const Config& config, const KubeConfig& kube,
                                         const Clock& clock)
    : parts_(std::make_unique<Parts>()) {
  std::vector<NamedProvider> named;
  std::string default_provider;
  for (std::size_t i = 0; i < config.providers.size(); ++i) {
    const ProviderConfig& pc = config.providers[i];
    const std::string where = config.source + ": providers[" + std::to_string(i) + "] (" + pc.name +
                              ", kind " + to_string(pc.kind) + ")";
    CloudProvider* cloud = nullptr;
    switch (pc.kind) {
      case ProviderKind::Sim: {
        parts_->clouds.push_back(std::make_unique<RemoteSimCloud>(remote_sim_cloud_options(kube)));
        cloud = parts_->clouds.back().get();
        break;
      }
      case ProviderKind::Static: {
        StaticProviderOptions o;
        o.name = pc.name;
        o.node_selector = pc.node_selector;
        o.micros_per_hour = dollars_to_micros(pc.usd_per_hour);
        NodeCache* cache = &parts_->nodes;
        parts_->clouds.push_back(std::make_unique<StaticProvider>(
            o, [cache] { return cache->get(); }, clock));
        cloud = parts_->clouds.back().get();
        break;
      }
      case ProviderKind::Azure: {
        const AzureConfig& a = pc.azure;
        if (a.tenant_id.empty() || a.client_id.empty() || a.client_secret_file.empty())
          throw InputError(where + ": azure needs tenantId, clientId and clientSecretFile");
        auto stack = std::make_unique<AzureStack>();
        azure::ClientSecretOptions cs;
        if (!a.login_endpoint.empty()) cs.login_endpoint = a.login_endpoint;
        cs.tenant_id = a.tenant_id;
        cs.client_id = a.client_id;
        cs.client_secret =
            trimmed(read_file_text(a.client_secret_file, "azure clientSecretFile", 1 << 20));
        stack->credential =
            std::make_unique<azure::ClientSecretCredential>(cs, stack->transport, clock);
        azure::ArmClientOptions ao;
        if (!a.endpoint.empty()) ao.endpoint = a.endpoint;
        stack->arm = std::make_unique<azure::ArmClient>(ao, stack->transport, *stack->credential,
                                                        stack->sleeper);
        azure::AzureProviderOptions po;
        po.name = pc.name;
        po.subscription_id = a.subscription_id;
        po.resource_group = a.resource_group;
        po.vm.cluster_name = config.cluster_name;
        po.vm.location = pc.region;
        po.vm.subnet_id = a.subnet_id;
        po.vm.image = a.image_id;
        po.vm.admin_username = a.admin_username;
        po.vm.ssh_public_key = a.ssh_public_key;
        po.vm.custom_data = a.custom_data;
        stack->provider = std::make_unique<azure::AzureProvider>(po, *stack->arm, clock);
        cloud = stack->provider.get();
        parts_->azure.push_back(std::move(stack));
        break;
      }
      case ProviderKind::Aws:
        // The AWS stack reads its catalog from the EC2 API and its settings from the top-level
        // `aws:`; behind the multi-provider router it is not wired yet (docs/clouds.md).
        throw InputError(where +
                         ": kind aws is not supported in providers: yet; run AWS alone with "
                         "--provider aws");
    }
    if (pc.kind != ProviderKind::Static && default_provider.empty()) default_provider = pc.name;
    named.push_back({pc.name, cloud});
  }
  if (default_provider.empty())
    throw InputError(config.source + ": providers: lists owned hardware only; add a cloud");
  multi_ = std::make_unique<MultiCloud>(std::move(named), default_provider);
}

ConfiguredProviders::~ConfiguredProviders() = default;

void ConfiguredProviders::nodes_observed(const std::vector<Node>& nodes) {
  parts_->nodes.set(nodes);
}

void check_catalog_providers(const std::vector<InstanceType>& types, const Config& config,
                             const std::string& source) {
  if (config.providers.empty()) return;
  std::set<std::string, std::less<>> clouds;
  for (const auto& pc : config.providers) {
    if (pc.kind != ProviderKind::Static) clouds.insert(pc.name);
  }
  for (const auto& t : types) {
    if (t.provider.empty() || clouds.count(t.provider) != 0) continue;
    throw InputError(source + ": instance type " + t.name + " names provider \"" + t.provider +
                     "\", which providers: of " + config.source + " does not list as a cloud");
  }
}

}  // namespace fitscale::cli
