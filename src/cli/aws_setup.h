#pragma once
// Builds the AWS provider for `fitscale run --provider aws [--aws-endpoint URL]` and
// `fitscale cluster --ec2-endpoint URL`: keys from the process environment (only cli/ reads it)
// or the configured profile, everything else from the config file's `aws:` section.
#include <memory>
#include <string>

#include "cloud/aws/aws_stack.h"
#include "cloud/aws/credentials.h"
#include "model/config.h"

namespace fitscale::cli {

// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_PROFILE,
// AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE, HOME.
aws::CredentialEnvironment aws_credential_environment();

// `endpoint` overrides aws.endpoint when not empty; `cluster_name` overrides the config's when
// not empty. `catalog` (may be null) must outlive the result. Throws InputError when no keys.
std::unique_ptr<aws::AwsStack> make_aws_stack(const Config& config, const std::string& endpoint,
                                              const std::string& cluster_name, const Clock& clock,
                                              const Catalog* catalog);

}  // namespace fitscale::cli
