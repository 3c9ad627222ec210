#include "cli/aws_setup.h"

#include <cctype>
#include <cstdlib>
#include <random>
#include <set>

#include "cloud/aws/availability_zones.h"
#include "cloud/aws/credential_chain.h"
#include "cloud/aws/curl_transport.h"
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
  e.web_identity_token_file = env("AWS_WEB_IDENTITY_TOKEN_FILE");
  e.role_arn = env("AWS_ROLE_ARN");
  e.role_session_name = env("AWS_ROLE_SESSION_NAME");
  e.sts_endpoint = env("AWS_ENDPOINT_URL_STS");
  e.container_full_uri = env("AWS_CONTAINER_CREDENTIALS_FULL_URI");
  e.container_relative_uri = env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
  e.container_authorization_token_file = env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
  e.container_authorization_token = env("AWS_CONTAINER_AUTHORIZATION_TOKEN");
  e.ec2_metadata_endpoint = env("AWS_EC2_METADATA_SERVICE_ENDPOINT");
  std::string disabled = env("AWS_EC2_METADATA_DISABLED");
  for (auto& c : disabled) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  e.ec2_metadata_disabled = disabled == "true";
  return e;
}

std::unique_ptr<aws::AwsStack> make_aws_stack(const Config& config, const std::string& endpoint,
                                              const std::string& cluster_name, const Clock& clock,
                                              const Catalog* catalog, AwsRole role) {
  auto options = aws::stack_options(config);
  if (!endpoint.empty()) options.endpoint = endpoint;
  aws::CredentialChainOptions chain;
  chain.env = aws_credential_environment();
  chain.configured_profile = config.aws.credentials_profile;
  chain.region = options.provider.region;
  chain.endpoint = options.endpoint;
  // Off EC2 nothing answers at 169.254.169.254: give up on it within a second or two, as the
  // SDKs do, so "no credentials" is said promptly.
  auto credentials =
      aws::resolve_credential_chain(chain, std::make_shared<aws::CurlTransport>(30000, 10000),
                                    std::make_shared<aws::CurlTransport>(2000, 1000));
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
  // A zone the region does not have would be planned on and fail every launch: stop at start.
  auto zones = stack.ec2().call("DescribeAvailabilityZones", {});
  aws::check_zones_exist(config.zones, aws::parse_availability_zones(zones->document_element()),
                         stack.ec2().service().region, config.source);
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
