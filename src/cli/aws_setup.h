#pragma once
// Builds the AWS provider for `fitscale run --provider aws [--aws-endpoint URL]` and
// `fitscale cluster --ec2-endpoint URL`: keys from the AWS credential chain (credential_chain.h)
// fed with the process environment (only cli/ reads it), everything else from the config
// file's `aws:` section.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cloud/aws/api_catalog.h"
#include "cloud/aws/aws_stack.h"
#include "cloud/aws/credentials.h"
#include "model/config.h"
#include "model/node.h"

namespace fitscale::cli {

// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_PROFILE,
// AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE, HOME; AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_ARN,
// AWS_ROLE_SESSION_NAME, AWS_ENDPOINT_URL_STS; AWS_CONTAINER_CREDENTIALS_FULL_URI,
// AWS_CONTAINER_CREDENTIALS_RELATIVE_URI, AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE,
// AWS_CONTAINER_AUTHORIZATION_TOKEN; AWS_EC2_METADATA_SERVICE_ENDPOINT, AWS_EC2_METADATA_DISABLED.
aws::CredentialEnvironment aws_credential_environment();

// Who the stack is for. Only the autoscaler reads aws.interruptionQueue (the virtual cluster
// must not take its messages); in a dry run it reads but neither tags nor deletes.
enum class AwsRole { VirtualCluster, Autoscaler, AutoscalerDryRun };

// `endpoint` overrides aws.endpoint when not empty; `cluster_name` overrides the config's when
// not empty. `catalog` (may be null) must outlive the result. Throws InputError when no keys.
std::unique_ptr<aws::AwsStack> make_aws_stack(const Config& config, const std::string& endpoint,
                                              const std::string& cluster_name, const Clock& clock,
                                              const Catalog* catalog,
                                              AwsRole role = AwsRole::VirtualCluster);

// The catalog `fitscale run --provider aws` plans on: the region's types, zones and spot prices
// from the EC2 API (restricted to aws.catalog.instanceTypes when set) merged with `price_table`.
// Throws AwsError when the API cannot be read: fitscale never plans on offerings it could not
// check.
aws::ApiCatalog load_api_catalog(aws::AwsStack& stack, const std::vector<InstanceType>& price_table,
                                 const Config& config, Time now);

// The types whose spot prices a refresh asks for: none (= all) when the config does not
// restrict the catalog, else the catalog's types that have spot offerings.
std::vector<std::string> spot_refresh_types(const Catalog& catalog, const Config& config);

// aws-node-termination-handler taints a node AWS is about to take away
// ("aws-node-termination-handler/spot-itn", ".../scheduled-maintenance", ...): fitscale treats
// such a node's instance as having an interruption notice. The providerIDs of those nodes.
inline constexpr const char* kNthTaintPrefix = "aws-node-termination-handler/";
std::set<std::string> nth_tainted_provider_ids(const std::vector<Node>& nodes);

}  // namespace fitscale::cli
