#include "cloud/gcp/gce_error.h"

#include <nlohmann/json.hpp>

namespace fitscale::gcp {
namespace {

std::string str(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

GceError gce_error_from_body(long status, std::string_view body) {
  std::string code = "HTTP " + std::to_string(status);
  std::string message(body.substr(0, 300));
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("error") && j["error"].is_object()) {
    const nlohmann::json& e = j["error"];
    if (!str(e, "message").empty()) message = str(e, "message");
    if (e.contains("errors") && e["errors"].is_array() && !e["errors"].empty()) {
      const nlohmann::json& first = e["errors"][0];
      // A call's items carry a reason; an operation-style body carries a code.
      if (!str(first, "reason").empty())
        code = str(first, "reason");
      else if (!str(first, "code").empty())
        code = str(first, "code");
    } else if (!str(e, "status").empty()) {
      code = str(e, "status");  // "RESOURCE_EXHAUSTED", "PERMISSION_DENIED"
    }
  } else if (j.is_object() && j.contains("error") && j["error"].is_string()) {
    // OAuth2 token endpoint: {"error": "invalid_grant", "error_description": ...}
    code = j["error"].get<std::string>();
    message = str(j, "error_description");
  }
  return GceError(status, std::move(code), message);
}

bool operation_failed(const nlohmann::json& operation) {
  return operation.is_object() && operation.contains("error") && operation["error"].is_object();
}

GceError operation_error(const nlohmann::json& operation) {
  std::string code = "OperationFailed";
  std::string message;
  const nlohmann::json& e = operation["error"];
  if (e.contains("errors") && e["errors"].is_array() && !e["errors"].empty()) {
    const nlohmann::json& first = e["errors"][0];
    if (!str(first, "code").empty()) code = str(first, "code");
    message = str(first, "message");
  }
  if (message.empty()) message = str(operation, "httpErrorMessage");
  return GceError(0, std::move(code), message);
}

bool is_capacity_error(const GceError& e) {
  static constexpr std::string_view kCapacity[] = {"ZONE_RESOURCE_POOL_EXHAUSTED",
                                                   "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS",
                                                   "REGION_RESOURCE_POOL_EXHAUSTED",
                                                   "RESOURCE_POOL_EXHAUSTED",
                                                   "QUOTA_EXCEEDED",
                                                   "quotaExceeded",
                                                   "insufficientCapacity",
                                                   "UNSUPPORTED_OPERATION",
                                                   "MinCountNotReached"};
  for (std::string_view c : kCapacity) {
    if (e.code() == c) return true;
  }
  return false;
}

bool is_rate_limit(long status, std::string_view code) {
  return status == 429 ||
         (status == 403 && (code == "rateLimitExceeded" || code == "userRateLimitExceeded"));
}

}  // namespace fitscale::gcp
