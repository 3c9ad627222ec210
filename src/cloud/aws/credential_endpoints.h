#pragma once
// The three places temporary AWS credentials are fetched from over HTTP, as the AWS SDKs do:
//  - STS AssumeRoleWithWebIdentity with a projected service-account token (EKS IRSA),
//  - the container credentials endpoint (EKS Pod Identity, ECS task roles),
//  - the EC2 instance metadata service, IMDSv2 only (a session token first).
// Each returns keys with their Expiration; RefreshingCredentials fetches again before it.
// Contracts: AWS SDKs and Tools Reference Guide ("Container credential provider", "Assume role
// with web identity"), STS API Reference (AssumeRoleWithWebIdentity), EC2 User Guide ("Use
// IMDSv2"). No secret is ever put in an error message.
#include <string>
#include <string_view>

#include "cloud/aws/credential_source.h"
#include "cloud/aws/http_transport.h"

namespace fitscale::aws {

struct WebIdentityOptions {
  std::string token_file;    // AWS_WEB_IDENTITY_TOKEN_FILE, read again on every fetch
  std::string role_arn;      // AWS_ROLE_ARN
  std::string session_name;  // AWS_ROLE_SESSION_NAME; "" = "fitscale"
  std::string sts_endpoint;  // "https://sts.us-east-1.amazonaws.com" or a test server
};

// One unsigned AssumeRoleWithWebIdentity call (STS authenticates the token, not a signature).
// Throws AwsError with STS's code (InvalidIdentityToken, AccessDenied, ...) or InputError when
// the token file cannot be read.
TemporaryCredentials fetch_web_identity(HttpTransport& http, const WebIdentityOptions& options);
// <AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>...
TemporaryCredentials parse_assume_role_with_web_identity(std::string_view xml);

struct ContainerCredentialOptions {
  std::string full_uri;                  // AWS_CONTAINER_CREDENTIALS_FULL_URI
  std::string relative_uri;              // AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (ECS)
  std::string authorization_token_file;  // AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (EKS)
  std::string authorization_token;       // AWS_CONTAINER_AUTHORIZATION_TOKEN
};

// The URL to GET: RELATIVE_URI below http://169.254.170.2, else FULL_URI, which must be https
// or name a loopback address, the ECS address 169.254.170.2 or the EKS Pod Identity agent
// (169.254.170.23, fd00:ec2::23), so keys are never sent to an arbitrary host. Throws InputError
// naming the variable otherwise.
std::string container_credentials_url(const ContainerCredentialOptions& options);
// GET with `Authorization:` = the token file's contents (read on every fetch: EKS rotates it),
// else AWS_CONTAINER_AUTHORIZATION_TOKEN. Throws AwsError on a refusal or a bad answer.
TemporaryCredentials fetch_container_credentials(HttpTransport& http,
                                                 const ContainerCredentialOptions& options);

struct InstanceMetadataOptions {
  std::string endpoint = "http://169.254.169.254";  // AWS_EC2_METADATA_SERVICE_ENDPOINT
  int token_ttl_s = 21600;                          // the session token's lifetime (max 6 h)
};

// PUT /latest/api/token (X-aws-ec2-metadata-token-ttl-seconds), then with the token
// (X-aws-ec2-metadata-token) GET /latest/meta-data/iam/security-credentials/ for the role name
// and GET .../security-credentials/ROLE for its keys. Throws AwsError; code "NoAnswer" when the
// service did not answer at all (not on EC2).
TemporaryCredentials fetch_instance_metadata_credentials(HttpTransport& http,
                                                         const InstanceMetadataOptions& options);

// The JSON both the container endpoint and IMDS answer: AccessKeyId, SecretAccessKey, Token,
// Expiration (RFC 3339). Throws AwsError naming `source` on anything else.
TemporaryCredentials parse_credentials_json(std::string_view json, std::string_view source);

}  // namespace fitscale::aws
