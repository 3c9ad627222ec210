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
};

// Keys of `profile` in an INI document: the credentials file's "[name]" sections, or the config
// file's "[profile name]" ("[default]" in both). Empty Credentials when the profile is absent.
// Throws InputError (naming `source` and the line) on a malformed line.
Credentials parse_credentials_ini(std::string_view text, std::string_view source,
                                  std::string_view profile, bool config_file_style);

// `configured_profile` is the config file's aws.credentialsProfile ("" = the default chain).
// Throws InputError saying where it looked when no keys are found; never puts a secret in it.
Credentials resolve_credentials(const CredentialEnvironment& env,
                                const std::string& configured_profile);

}  // namespace fitscale::aws
