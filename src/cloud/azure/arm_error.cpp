#include "cloud/azure/arm_error.h"

#include <nlohmann/json.hpp>

namespace fitscale::azure {

ArmError arm_error_from_body(long status, std::string_view body) {
  std::string code = "HTTP " + std::to_string(status);
  std::string message(body.substr(0, 300));
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
  static constexpr std::string_view kCapacity[] = {"SkuNotAvailable",
                                                   "AllocationFailed",
                                                   "ZonalAllocationFailed",
                                                   "OverconstrainedAllocationRequest",
                                                   "OverconstrainedZonalAllocationRequest",
                                                   "QuotaExceeded"};
  for (std::string_view c : kCapacity) {
    if (e.code() == c) return true;
  }
  const std::string what = e.what();
  return e.code() == "OperationNotAllowed" &&
         (what.find("quota") != std::string::npos || what.find("Quota") != std::string::npos);
}

}  // namespace fitscale::azure
