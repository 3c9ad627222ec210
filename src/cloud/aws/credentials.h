#pragma once
// Where AWS keys come from, in the order the AWS CLI uses: an explicitly configured profile,
// else AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY(/AWS_SESSION_TOKEN), else the profile named by
// AWS_PROFILE (or "default") in the shared credentials file, then in the config file.
// The environment is read in cli/ and handed in here as values.
#include <string>
#include <string_view>

#include "cloud/aws/sigv4.h"

namespace fitscale::aws {

struct CredentialEnvironment {
  std::string access_key_id;            // AWS_ACCESS_KEY_ID
  std::string secret_access_key;        // AWS_SECRET_ACCESS_KEY
  std::string session_token;            // AWS_SESSION_TOKEN
  std::string profile;                  // AWS_PROFILE
  std::string shared_credentials_file;  // AWS_SHARED_CREDENTIALS_FILE, default ~/.aws/credentials
  std::string config_file;              // AWS_CONFIG_FILE, default ~/.aws/config
  std::string home;                     // HOME
  // Web identity (EKS IRSA): STS AssumeRoleWithWebIdentity with this token file.
  std::string web_identity_token_file;  // AWS_WEB_IDENTITY_TOKEN_FILE
  std::string role_arn;                 // AWS_ROLE_ARN
  std::string role_session_name;        // AWS_ROLE_SESSION_NAME
  std::string sts_endpoint;             // AWS_ENDPOINT_URL_STS
  // Container credentials (EKS Pod Identity, ECS task roles).
  std::string container_full_uri;                  // AWS_CONTAINER_CREDENTIALS_FULL_URI
  std::string container_relative_uri;              // AWS_CONTAINER_CREDENTIALS_RELATIVE_URI
  std::string container_authorization_token_file;  // AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE
  std::string container_authorization_token;       // AWS_CONTAINER_AUTHORIZATION_TOKEN
  // EC2 instance metadata (IMDSv2).
  std::string ec2_metadata_endpoint;   // AWS_EC2_METADATA_SERVICE_ENDPOINT
  bool ec2_metadata_disabled = false;  // AWS_EC2_METADATA_DISABLED=true
};

// The keys of a profile in the shared credentials file, then in the config file ("" when
// neither has them). `looked` gets the places, for the error message.
Credentials shared_file_credentials(const CredentialEnvironment& env, const std::string& profile,
                                    std::string* looked = nullptr);

// Keys of `profile` in an INI document: the credentials file's "[name]" sections, or the config
// file's "[profile name]" ("[default]" in both). Empty Credentials when the profile is absent.
// Throws InputError (naming `source` and the line) on a malformed line.
Credentials parse_credentials_ini(std::string_view text, std::string_view source,
                                  std::string_view profile, bool config_file_style);

// Static keys only: `configured_profile` (the config file's aws.credentialsProfile) if set, else
// the environment's keys, else the AWS_PROFILE/default profile of the shared files. The full
// chain with temporary credentials is resolve_credential_chain (credential_chain.h).
// Throws InputError saying where it looked when no keys are found; never puts a secret in it.
Credentials resolve_credentials(const CredentialEnvironment& env,
                                const std::string& configured_profile);

}  // namespace fitscale::aws
