#pragma once
// OAuth2 access tokens for Compute Engine (docs/gcp.md), two ways:
// - a service-account key (the JSON file the console downloads): a JWT signed RS256 with its
//   private key, exchanged at its token_uri (grant_type jwt-bearer, RFC 7523);
// - the metadata server of the VM fitscale runs on: GET
//   {metadata}/computeMetadata/v1/instance/service-accounts/default/token with Metadata-Flavor:
//   Google.
// Each keeps its token until five minutes before it expires. Endpoints are configurable so tests
// serve them on loopback.
#include <string>

#include "cloud/aws/http_transport.h"
#include "cloud/common/token_source.h"
#include "controller/interfaces.h"

namespace fitscale::gcp {

inline constexpr const char* kComputeScope = "https://www.googleapis.com/auth/compute";

struct ServiceAccountKey {
  std::string client_email;
  std::string private_key;     // PEM, PKCS#8
  std::string private_key_id;  // the JWT's kid
  std::string token_uri = "https://oauth2.googleapis.com/token";
};

// Reads a service-account key file's JSON. Throws GceError ("BadServiceAccountKey") naming the
// missing field; `source` names the file.
ServiceAccountKey parse_service_account_key(const std::string& json, const std::string& source);

// The signed assertion: base64url(header).base64url(claims).base64url(RS256 signature), with
// iss = client_email, scope, aud = token_uri, iat = now, exp = now + 3600. Throws GceError when
// the key cannot sign.
std::string service_account_jwt(const ServiceAccountKey& key, const std::string& scope, Time now);

class ServiceAccountCredential final : public cloud::TokenSource {
 public:
  ServiceAccountCredential(ServiceAccountKey key, aws::HttpTransport& transport, const Clock& clock,
                           std::string scope = kComputeScope)
      : key_(std::move(key)), scope_(std::move(scope)), transport_(transport), clock_(clock) {}
  std::string token() override;

 private:
  ServiceAccountKey key_;
  std::string scope_;
  aws::HttpTransport& transport_;
  const Clock& clock_;
  std::string token_;
  Time expires_at_ = 0;
};

class MetadataServerCredential final : public cloud::TokenSource {
 public:
  // `endpoint`: "http://metadata.google.internal" in production.
  MetadataServerCredential(std::string endpoint, aws::HttpTransport& transport, const Clock& clock)
      : endpoint_(std::move(endpoint)), transport_(transport), clock_(clock) {}
  std::string token() override;

 private:
  std::string endpoint_;
  aws::HttpTransport& transport_;
  const Clock& clock_;
  std::string token_;
  Time expires_at_ = 0;
};

}  // namespace fitscale::gcp
