#include "cli/run_providers.h"

#include <mutex>
#include <optional>
#include <set>

#include "cli/aws_setup.h"
#include "cloud/aws/curl_transport.h"
#include "cloud/azure/arm_client.h"
#include "cloud/azure/azure_provider.h"
#include "cloud/azure/client_secret_credential.h"
#include "cloud/gcp/gce_client.h"
#include "cloud/gcp/gce_error.h"
#include "cloud/gcp/gcp_credentials.h"
#include "cloud/gcp/gcp_provider.h"
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

// The objects behind one JSON-API cloud (Azure, GCP), owned together and built in this order:
// the provider calls through its client, the client signs with the credential, both send
// through the transport. Members are destroyed in reverse, so nothing outlives what it uses.
struct HttpCloudStack {
  explicit HttpCloudStack(long timeout_ms = 30000) : transport(timeout_ms, 10000) {}
  virtual ~HttpCloudStack() = default;
  HttpCloudStack(const HttpCloudStack&) = delete;
  HttpCloudStack& operator=(const HttpCloudStack&) = delete;
  virtual CloudProvider& provider() = 0;
  aws::CurlTransport transport;
  aws::ThreadSleeper sleeper;
  std::unique_ptr<cloud::TokenSource> credential;
};

struct AzureStack final : HttpCloudStack {
  CloudProvider& provider() override { return *azure_provider; }
  std::unique_ptr<azure::ArmClient> arm;
  std::unique_ptr<azure::AzureProvider> azure_provider;
};

struct GcpStack final : HttpCloudStack {
  // zoneOperations.wait answers within about two minutes: the transport waits longer than that.
  GcpStack() : HttpCloudStack(150000) {}
  CloudProvider& provider() override { return *gcp_provider; }
  std::unique_ptr<gcp::GceClient> gce;
  std::unique_ptr<gcp::GcpProvider> gcp_provider;
};

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::unique_ptr<HttpCloudStack> azure_stack(const ProviderConfig& pc, const Config& config,
                                            const std::string& where, const Clock& clock) {
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
  stack->credential = std::make_unique<azure::ClientSecretCredential>(cs, stack->transport, clock);
  azure::ArmClientOptions ao;
  if (!a.endpoint.empty()) ao.endpoint = a.endpoint;
  stack->arm =
      std::make_unique<azure::ArmClient>(ao, stack->transport, *stack->credential, stack->sleeper);
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
  stack->azure_provider = std::make_unique<azure::AzureProvider>(po, *stack->arm, clock);
  return stack;
}

std::unique_ptr<HttpCloudStack> gcp_stack(const ProviderConfig& pc, const Config& config,
                                          const std::string& where, const Clock& clock) {
  const GcpConfig& g = pc.gcp;
  auto stack = std::make_unique<GcpStack>();
  if (!g.credentials_file.empty()) {
    try {
      stack->credential = std::make_unique<gcp::ServiceAccountCredential>(
          gcp::parse_service_account_key(
              read_file_text(g.credentials_file, "gcp credentialsFile", 1 << 20),
              g.credentials_file),
          stack->transport, clock);
    } catch (const gcp::GceError& e) {
      throw InputError(where + ": gcp.credentialsFile: " + e.what());
    }
  } else {
    stack->credential = std::make_unique<gcp::MetadataServerCredential>(
        g.metadata_endpoint.empty() ? "http://metadata.google.internal" : g.metadata_endpoint,
        stack->transport, clock);
  }
  gcp::GceClientOptions go;
  if (!g.endpoint.empty()) go.endpoint = g.endpoint;
  stack->gce =
      std::make_unique<gcp::GceClient>(go, stack->transport, *stack->credential, stack->sleeper);
  gcp::GcpProviderOptions po;
  po.name = pc.name;
  po.zones = pc.zones;
  po.instance.cluster_name = config.cluster_name;
  po.instance.project = g.project;
  po.instance.source_image = g.image;
  po.instance.network = g.network;
  po.instance.subnetwork = g.subnetwork;
  po.instance.service_account = g.service_account;
  po.instance.startup_script = g.startup_script;
  po.instance.boot_disk_gb = g.boot_disk_gb;
  stack->gcp_provider = std::make_unique<gcp::GcpProvider>(po, *stack->gce, clock);
  return stack;
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
  std::vector<std::unique_ptr<HttpCloudStack>> http_clouds;  // Azure and GCP
  std::vector<std::unique_ptr<aws::AwsStack>> aws;
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
      case ProviderKind::Azure:
      case ProviderKind::Gcp: {
        auto stack = pc.kind == ProviderKind::Azure ? azure_stack(pc, config, where, clock)
                                                    : gcp_stack(pc, config, where, clock);
        cloud = &stack->provider();
        parts_->http_clouds.push_back(std::move(stack));
        break;
      }
      case ProviderKind::Aws: {
        // One region: the top-level aws: settings with this entry's region, zones, endpoint,
        // credentials profile and subnets. The interruption queue is one region's: not shared.
        Config regional = config;
        regional.region = pc.region;
        regional.aws.region = pc.region;
        if (!pc.zones.empty()) regional.zones = pc.zones;
        if (!pc.aws.endpoint.empty()) regional.aws.endpoint = pc.aws.endpoint;
        if (!pc.aws.credentials_profile.empty())
          regional.aws.credentials_profile = pc.aws.credentials_profile;
        if (!pc.aws.subnets.empty()) regional.aws.subnets = pc.aws.subnets;
        regional.aws.interruption_queue.clear();
        parts_->aws.push_back(
            make_aws_stack(regional, "", "", clock, nullptr, AwsRole::Autoscaler));
        cloud = &parts_->aws.back()->provider();
        break;
      }
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

void ConfiguredProviders::set_prices(const Catalog& catalog) {
  // An AWS provider prices the instances it lists by type x zone x capacity; zones are one
  // provider's each, so the whole catalog serves every region.
  for (auto& stack : parts_->aws) stack->provider().set_prices(catalog);
}

std::vector<InstanceType> with_provider_catalogs(
    std::vector<InstanceType> types, const Config& config,
    const std::function<std::string(const std::string&)>& read) {
  for (std::size_t i = 0; i < config.providers.size(); ++i) {
    const ProviderConfig& pc = config.providers[i];
    if (pc.catalog.empty()) continue;
    const std::string where =
        config.source + ": providers[" + std::to_string(i) + "].catalog (" + pc.catalog + ")";
    for (InstanceType t : parse_catalog_csv(read(pc.catalog), pc.catalog)) {
      if (!t.provider.empty() && t.provider != pc.name)
        throw InputError(where + ": instance type " + t.name + " names provider \"" + t.provider +
                         "\"; a provider's own catalog sells through it only");
      t.provider = pc.name;
      if (t.region.empty()) t.region = pc.region;
      types.push_back(std::move(t));
    }
  }
  return types;
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
