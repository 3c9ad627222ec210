#include "cloud/gcp/gcp_credentials.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "cloud/common/encoding.h"
#include "cloud/common/json_field.h"
#include "cloud/gcp/gce_error.h"

namespace fitscale::gcp {

using cloud::string_field;

namespace {

// {"access_token", "expires_in", "token_type"}: the same answer from the OAuth2 endpoint and the
// metadata server. Returns the token and sets the expiry.
std::string read_token_answer(const aws::HttpResponse& r, Time now, Time& expires_at,
                              const char* what) {
  if (r.status == 0) throw GceError(0, "TokenRequestFailed", what + (": " + r.transport_error));
  if (r.status != 200) throw gce_error_from_body(r.status, r.body);
  const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  std::string token = string_field(j, "access_token");
  if (token.empty())
    throw GceError(r.status, "BadTokenResponse", std::string("no access_token from ") + what);
  Time lifetime = 3600;
  if (j.contains("expires_in") && j["expires_in"].is_number_integer())
    lifetime = j["expires_in"].get<Time>();
  expires_at = now + lifetime;
  return token;
}

}  // namespace

ServiceAccountKey parse_service_account_key(const std::string& json, const std::string& source) {
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (!j.is_object()) throw GceError(0, "BadServiceAccountKey", source + ": not a JSON object");
  if (!string_field(j, "type").empty() && string_field(j, "type") != "service_account")
    throw GceError(0, "BadServiceAccountKey",
                   source + ": type is \"" + string_field(j, "type") + "\", not service_account");
  ServiceAccountKey k;
  k.client_email = string_field(j, "client_email");
  k.private_key = string_field(j, "private_key");
  k.private_key_id = string_field(j, "private_key_id");
  if (!string_field(j, "token_uri").empty()) k.token_uri = string_field(j, "token_uri");
  for (const auto& [field, value] :
       {std::pair{"client_email", &k.client_email}, std::pair{"private_key", &k.private_key}}) {
    if (value->empty())
      throw GceError(0, "BadServiceAccountKey", source + ": no " + std::string(field));
  }
  return k;
}

std::string service_account_jwt(const ServiceAccountKey& key, const std::string& scope, Time now) {
  nlohmann::json header = {{"alg", "RS256"}, {"typ", "JWT"}};
  if (!key.private_key_id.empty()) header["kid"] = key.private_key_id;
  const nlohmann::json claims = {{"iss", key.client_email},
                                 {"scope", scope},
                                 {"aud", key.token_uri},
                                 {"iat", now},
                                 {"exp", now + 3600}};
  const std::string signing_input =
      cloud::base64url(header.dump()) + "." + cloud::base64url(claims.dump());

  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(key.private_key.data(), static_cast<int>(key.private_key.size())), &BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> pkey(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr,
      &EVP_PKEY_free);
  if (!pkey) throw GceError(0, "BadServiceAccountKey", "private_key is not a PEM private key");
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  std::size_t length = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, pkey.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &length,
                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1)
    throw GceError(0, "SigningFailed", "cannot sign the JWT with private_key (RS256)");
  std::string signature(length, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1)
    throw GceError(0, "SigningFailed", "cannot sign the JWT with private_key (RS256)");
  signature.resize(length);
  return signing_input + "." + cloud::base64url(signature);
}

std::string ServiceAccountCredential::token() {
  const Time now = clock_.now();
  if (!token_.empty() && now < expires_at_ - 300) return token_;
  const std::string body =
      "grant_type=" + cloud::form_escape("urn:ietf:params:oauth:grant-type:jwt-bearer") +
      "&assertion=" + cloud::form_escape(service_account_jwt(key_, scope_, now));
  const aws::HttpResponse r = transport_.send(
      "POST", key_.token_uri, {{"Content-Type", "application/x-www-form-urlencoded"}}, body);
  token_ = read_token_answer(r, now, expires_at_, "the OAuth2 token endpoint");
  return token_;
}

std::string MetadataServerCredential::token() {
  const Time now = clock_.now();
  if (!token_.empty() && now < expires_at_ - 300) return token_;
  const aws::HttpResponse r = transport_.send(
      "GET", endpoint_ + "/computeMetadata/v1/instance/service-accounts/default/token",
      {{"Metadata-Flavor", "Google"}}, "");
  token_ = read_token_answer(r, now, expires_at_, "the metadata server");
  return token_;
}

}  // namespace fitscale::gcp
