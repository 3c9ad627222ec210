#include "cli/aws_setup.h"

#include <cstdlib>
#include <random>

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
                                              const Catalog* catalog) {
  auto credentials =
      aws::resolve_credentials(aws_credential_environment(), config.aws.credentials_profile);
  auto options = aws::stack_options(config);
  if (!endpoint.empty()) options.endpoint = endpoint;
  if (!cluster_name.empty()) options.provider.cluster_name = cluster_name;
  options.jitter_seed = std::random_device{}();
  return std::make_unique<aws::AwsStack>(std::move(credentials), std::move(options), clock,
                                         catalog);
}

}  // namespace fitscale::cli
