#pragma once
// The AWS SDKs' default credential chain, first source that yields keys wins:
//  0. aws.credentialsProfile in fitscale's config, when set: that profile and nothing else;
//  1. environment: AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN);
//  2. web identity: AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN through STS
//     AssumeRoleWithWebIdentity (EKS IAM roles for service accounts, "IRSA");
//  3. the shared credentials and config files: profile AWS_PROFILE, else "default";
//  4. container credentials: AWS_CONTAINER_CREDENTIALS_FULL_URI (EKS Pod Identity) or
//     AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (ECS);
//  5. the EC2 instance metadata service, IMDSv2 (unless AWS_EC2_METADATA_DISABLED=true).
// (The order of the AWS SDKs for Java and PHP and of the SDKs and Tools reference guide.)
// Temporary keys (2, 4, 5) are refreshed kCredentialRefreshBefore their Expiration.
// A source that is configured but fails (STS refuses the token, the container endpoint refuses
// its authorization token) stops the chain with its error, as the SDKs do: falling through to
// other keys would run with an identity nobody chose. Values come from cli/ (no environment
// reads here).
#include <memory>
#include <string>

#include "cloud/aws/credential_source.h"
#include "cloud/aws/credentials.h"
#include "cloud/aws/http_transport.h"

namespace fitscale::aws {

struct CredentialChainOptions {
  CredentialEnvironment env;
  std::string configured_profile;  // aws.credentialsProfile ("" = the chain)
  std::string region = "us-east-1";
  // aws.endpoint / --aws-endpoint: one URL for every API (moto), STS included unless
  // AWS_ENDPOINT_URL_STS names another. "" = https://sts.REGION.amazonaws.com.
  std::string endpoint;
};

std::string sts_endpoint(const CredentialChainOptions& options);

// `http` is for STS and the container endpoint; `metadata_http` for IMDS (give it short
// timeouts: off EC2 nothing answers there). Both are kept alive by the returned source.
// Throws InputError, one line listing every source it tried and why each gave nothing, when no
// source yields keys; throws InputError/AwsError when a configured source fails.
std::shared_ptr<CredentialSource> resolve_credential_chain(
    const CredentialChainOptions& options, const std::shared_ptr<HttpTransport>& http,
    const std::shared_ptr<HttpTransport>& metadata_http);

}  // namespace fitscale::aws
