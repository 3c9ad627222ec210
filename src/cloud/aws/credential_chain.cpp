#include "cloud/aws/credential_chain.h"

#include <vector>

#include "cloud/aws/aws_error.h"
#include "cloud/aws/credential_endpoints.h"
#include "model/error.h"

namespace fitscale::aws {
namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

// Temporary keys from `fetch`, fetched once now and again before they expire.
std::shared_ptr<CredentialSource> refreshing(const std::string& description,
                                             RefreshingCredentials::Fetch fetch) {
  auto first = fetch();
  return std::make_shared<RefreshingCredentials>(description, std::move(fetch), std::move(first));
}

}  // namespace

std::string sts_endpoint(const CredentialChainOptions& o) {
  if (!o.env.sts_endpoint.empty()) return o.env.sts_endpoint;
  if (!o.endpoint.empty()) return o.endpoint;
  return "https://sts." + o.region + ".amazonaws.com";
}

std::shared_ptr<CredentialSource> resolve_credential_chain(
    const CredentialChainOptions& o, const std::shared_ptr<HttpTransport>& http,
    const std::shared_ptr<HttpTransport>& metadata_http) {
  const CredentialEnvironment& env = o.env;
  if (!o.configured_profile.empty()) {
    std::string looked;
    auto c = shared_file_credentials(env, o.configured_profile, &looked);
    if (c.empty()) {
      throw InputError("no AWS credentials: aws.credentialsProfile names " + looked +
                       ", which has no keys");
    }
    return std::make_shared<StaticCredentials>(std::move(c));
  }
  std::vector<std::string> tried;

  // 1. Environment.
  if (!env.access_key_id.empty() && !env.secret_access_key.empty()) {
    return std::make_shared<StaticCredentials>(
        Credentials{env.access_key_id, env.secret_access_key, env.session_token, "environment"});
  }
  tried.push_back(env.access_key_id.empty() ? "environment (AWS_ACCESS_KEY_ID not set)"
                                            : "environment (AWS_SECRET_ACCESS_KEY not set)");

  // 2. Web identity.
  if (!env.web_identity_token_file.empty() && !env.role_arn.empty()) {
    WebIdentityOptions w{env.web_identity_token_file, env.role_arn, env.role_session_name,
                         sts_endpoint(o)};
    const std::string description = "web identity (" + env.role_arn + ")";
    try {
      return refreshing(description, [http, w] { return fetch_web_identity(*http, w); });
    } catch (const std::exception& e) {
      throw InputError("AWS credentials from " + description + " via " + w.sts_endpoint +
                       " failed: " + e.what());
    }
  }
  tried.push_back(env.web_identity_token_file.empty()
                      ? "web identity (AWS_WEB_IDENTITY_TOKEN_FILE not set)"
                      : "web identity (AWS_ROLE_ARN not set)");

  // 3. Shared credentials and config files.
  {
    const std::string profile = env.profile.empty() ? "default" : env.profile;
    std::string looked;
    auto c = shared_file_credentials(env, profile, &looked);
    if (!c.empty()) return std::make_shared<StaticCredentials>(std::move(c));
    tried.push_back(looked + " (no keys)");
  }

  // 4. Container credentials.
  if (!env.container_full_uri.empty() || !env.container_relative_uri.empty()) {
    ContainerCredentialOptions c{env.container_full_uri, env.container_relative_uri,
                                 env.container_authorization_token_file,
                                 env.container_authorization_token};
    const std::string url = container_credentials_url(c);  // InputError for a forbidden host
    const std::string description = "container credentials (" + url + ")";
    try {
      return refreshing(description, [http, c] { return fetch_container_credentials(*http, c); });
    } catch (const std::exception& e) {
      throw InputError("AWS credentials from " + description + " failed: " + e.what());
    }
  }
  tried.push_back(
      "container credentials (AWS_CONTAINER_CREDENTIALS_FULL_URI and _RELATIVE_URI not set)");

  // 5. Instance metadata, IMDSv2.
  if (!env.ec2_metadata_disabled) {
    InstanceMetadataOptions m;
    if (!env.ec2_metadata_endpoint.empty()) m.endpoint = env.ec2_metadata_endpoint;
    try {
      return refreshing("instance metadata (" + m.endpoint + ")", [metadata_http, m] {
        return fetch_instance_metadata_credentials(*metadata_http, m);
      });
    } catch (const AwsError& e) {
      tried.push_back("instance metadata " + m.endpoint + " (" + e.code() + ": " + e.aws_message() +
                      ")");
    }
  } else {
    tried.push_back("instance metadata (AWS_EC2_METADATA_DISABLED=true)");
  }
  throw InputError("no AWS credentials; tried " + join(tried));
}

}  // namespace fitscale::aws
