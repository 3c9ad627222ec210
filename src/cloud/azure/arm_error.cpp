#include "cloud/azure/arm_error.h"

#include <nlohmann/json.hpp>

namespace fitscale::azure {

ArmError arm_error_from_body(long status, std::string_view body) {
  auto [code, message] = cloud::unread_error_body(status, body);
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object()) {
    // ARM's error body; an operation's status body carries it the same way.
    const nlohmann::json* e = j.contains("error") && j["error"].is_object() ? &j["error"] : &j;
    if (e->contains("code") && (*e)["code"].is_string()) code = (*e)["code"].get<std::string>();
    if (e->contains("message") && (*e)["message"].is_string())
      message = (*e)["message"].get<std::string>();
  }
  return ArmError(status, std::move(code), message);
}

bool is_capacity_error(const ArmError& e) {
  if (cloud::code_is_one_of(e.code(), {"SkuNotAvailable", "AllocationFailed",
                                       "ZonalAllocationFailed", "OverconstrainedAllocationRequest",
                                       "OverconstrainedZonalAllocationRequest", "QuotaExceeded"}))
    return true;
  const std::string what = e.what();
  return e.code() == "OperationNotAllowed" &&
         (what.find("quota") != std::string::npos || what.find("Quota") != std::string::npos);
}

}  // namespace fitscale::azure
