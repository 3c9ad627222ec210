#pragma once
// OAuth2 client credentials for Azure Resource Manager (docs/azure.md): POST
// {login}/{tenant}/oauth2/v2.0/token with the app's client id and secret and the scope
// https://management.azure.com/.default; the token is kept until five minutes before it expires.
// The login endpoint is configurable so tests serve it on loopback.
#include <string>

#include "cloud/aws/http_transport.h"
#include "cloud/common/token_source.h"
#include "controller/interfaces.h"

namespace fitscale::azure {

// Throws ArmError when no token can be had.
using TokenSource = cloud::TokenSource;

struct ClientSecretOptions {
  std::string login_endpoint = "https://login.microsoftonline.com";
  std::string tenant_id;
  std::string client_id;
  std::string client_secret;
  std::string scope = "https://management.azure.com/.default";
};

class ClientSecretCredential final : public TokenSource {
 public:
  ClientSecretCredential(ClientSecretOptions options, aws::HttpTransport& transport,
                         const Clock& clock)
      : options_(std::move(options)), transport_(transport), clock_(clock) {}
  std::string token() override;

 private:
  ClientSecretOptions options_;
  aws::HttpTransport& transport_;
  const Clock& clock_;
  std::string token_;
  Time expires_at_ = 0;
};

}  // namespace fitscale::azure
