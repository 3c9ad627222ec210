#include "cloud/gcp/gce_error.h"

#include <nlohmann/json.hpp>

#include "cloud/common/json_field.h"

namespace fitscale::gcp {

using cloud::string_field;

GceError gce_error_from_body(long status, std::string_view body) {
  auto [code, message] = cloud::unread_error_body(status, body);
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("error") && j["error"].is_object()) {
    const nlohmann::json& e = j["error"];
    if (!string_field(e, "message").empty()) message = string_field(e, "message");
    if (e.contains("errors") && e["errors"].is_array() && !e["errors"].empty()) {
      const nlohmann::json& first = e["errors"][0];
      // A call's items carry a reason; an operation-style body carries a code.
      if (!string_field(first, "reason").empty())
        code = string_field(first, "reason");
      else if (!string_field(first, "code").empty())
        code = string_field(first, "code");
    } else if (!string_field(e, "status").empty()) {
      code = string_field(e, "status");  // "RESOURCE_EXHAUSTED", "PERMISSION_DENIED"
    }
  } else if (j.is_object() && j.contains("error") && j["error"].is_string()) {
    // OAuth2 token endpoint: {"error": "invalid_grant", "error_description": ...}
    code = j["error"].get<std::string>();
    message = string_field(j, "error_description");
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
    if (!string_field(first, "code").empty()) code = string_field(first, "code");
    message = string_field(first, "message");
  }
  if (message.empty()) message = string_field(operation, "httpErrorMessage");
  return GceError(0, std::move(code), message);
}

bool is_capacity_error(const GceError& e) {
  return cloud::code_is_one_of(
      e.code(),
      {"ZONE_RESOURCE_POOL_EXHAUSTED", "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS",
       "REGION_RESOURCE_POOL_EXHAUSTED", "RESOURCE_POOL_EXHAUSTED", "QUOTA_EXCEEDED",
       "quotaExceeded", "insufficientCapacity", "UNSUPPORTED_OPERATION", "MinCountNotReached"});
}

bool is_rate_limit(long status, std::string_view code) {
  return status == 429 ||
         (status == 403 && (code == "rateLimitExceeded" || code == "userRateLimitExceeded"));
}

}  // namespace fitscale::gcp
