#include "cloud/azure/client_secret_credential.h"

#include <nlohmann/json.hpp>

#include "cloud/azure/arm_error.h"
#include "cloud/common/encoding.h"

namespace fitscale::azure {

std::string ClientSecretCredential::token() {
  const Time now = clock_.now();
  if (!token_.empty() && now < expires_at_ - 300) return token_;
  const std::string url = options_.login_endpoint + "/" + options_.tenant_id + "/oauth2/v2.0/token";
  const std::string body =
      "grant_type=client_credentials&client_id=" + cloud::form_escape(options_.client_id) +
      "&client_secret=" + cloud::form_escape(options_.client_secret) +
      "&scope=" + cloud::form_escape(options_.scope);
  const aws::HttpResponse r =
      transport_.send("POST", url, {{"Content-Type", "application/x-www-form-urlencoded"}}, body);
  if (r.status == 0) throw ArmError(0, "TokenRequestFailed", r.transport_error);
  if (r.status != 200) {
    // Entra ID answers {"error": "invalid_client", "error_description": ...}.
    const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
    std::string code = "HTTP " + std::to_string(r.status);
    std::string message;
    if (j.is_object() && j.contains("error") && j["error"].is_string())
      code = j["error"].get<std::string>();
    if (j.is_object() && j.contains("error_description") && j["error_description"].is_string())
      message = j["error_description"].get<std::string>();
    throw ArmError(r.status, code, message);
  }
  const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  if (!j.is_object() || !j.contains("access_token") || !j["access_token"].is_string())
    throw ArmError(r.status, "BadTokenResponse", "no access_token in the token response");
  token_ = j["access_token"].get<std::string>();
  Time lifetime = 3600;
  if (j.contains("expires_in")) {
    // A number, or a number in a string (the v1 endpoint's answer).
    if (j["expires_in"].is_number_integer()) lifetime = j["expires_in"].get<Time>();
    if (j["expires_in"].is_string()) {
      try {
        lifetime = std::stoll(j["expires_in"].get<std::string>());
      } catch (const std::exception&) {
        lifetime = 3600;
      }
    }
  }
  expires_at_ = now + lifetime;
  return token_;
}

}  // namespace fitscale::azure
