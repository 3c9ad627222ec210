#include "cli/aws_setup.h"

#include <cstdlib>
#include <random>
#include <set>

#include "planner/policy_from_config.h"

namespace fitscale::cli {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

aws::CredentialEnvironment aws_credential_environment() {
  aws::CredentialEnvironment e;
  e.access_key_id = env("AWS_ACCESS_KEY_ID");
  e.secret_access_key = env("AWS_SECRET_ACCESS_KEY");
  e.session_token = env("AWS_SESSION_TOKEN");
  e.profile = env("AWS_PROFILE");
  e.shared_credentials_file = env("AWS_SHARED_CREDENTIALS_FILE");
  e.config_file = env("AWS_CONFIG_FILE");
  e.home = env("HOME");
  return e;
}

std::unique_ptr<aws::AwsStack> make_aws_stack(const Config& config, const std::string& endpoint,
                                              const std::string& cluster_name, const Clock& clock,
                                              const Catalog* catalog, AwsRole role) {
  auto credentials =
      aws::resolve_credentials(aws_credential_environment(), config.aws.credentials_profile);
  auto options = aws::stack_options(config);
  if (!endpoint.empty()) options.endpoint = endpoint;
  if (!cluster_name.empty()) options.provider.cluster_name = cluster_name;
  if (role == AwsRole::VirtualCluster) options.interruption_queue.clear();
  options.provider.consume_interruptions = role == AwsRole::Autoscaler;
  options.jitter_seed = std::random_device{}();
  return std::make_unique<aws::AwsStack>(std::move(credentials), std::move(options), clock,
                                         catalog);
}

aws::ApiCatalog load_api_catalog(aws::AwsStack& stack, const std::vector<InstanceType>& price_table,
                                 const Config& config, Time now) {
  const CatalogOptions options = catalog_options_from_config(config);
  const auto facts =
      aws::fetch_api_facts(stack.ec2(), options, now, config.aws.catalog_instance_types);
  return aws::merge_api_catalog(facts, price_table, options);
}

std::vector<std::string> spot_refresh_types(const Catalog& catalog, const Config& config) {
  if (config.aws.catalog_instance_types.empty()) return {};
  std::set<std::string> names;
  for (const auto& o : catalog.offerings) {
    if (o.capacity_type == CapacityType::Spot) names.insert(o.instance_type);
  }
  return {names.begin(), names.end()};
}

std::set<std::string> nth_tainted_provider_ids(const std::vector<Node>& nodes) {
  std::set<std::string> out;
  for (const auto& n : nodes) {
    if (n.provider_id.empty()) continue;
    for (const auto& t : n.taints) {
      if (t.key.rfind(kNthTaintPrefix, 0) == 0) {
        out.insert(n.provider_id);
        break;
      }
    }
  }
  return out;
}

}  // namespace fitscale::cli
