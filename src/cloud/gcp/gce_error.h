#pragma once
// Errors from the Compute Engine API (docs/gcp.md): the body of a failed call
// ({"error": {"code": 403, "message", "errors": [{"reason", "domain", "message"}], "status"}})
// and the error of a DONE operation ({"error": {"errors": [{"code", "message"}]}}), and which of
// them mean "no capacity here" (back the offering off) or "slow down" (retry later).
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "cloud/common/cloud_error.h"

namespace fitscale::gcp {

// code(): the first errors[].reason of a failed call ("quotaExceeded", "rateLimitExceeded"), or
// the first errors[].code of a failed operation ("ZONE_RESOURCE_POOL_EXHAUSTED"), or
// "HTTP <status>".
class GceError : public cloud::CloudApiError {
 public:
  using CloudApiError::CloudApiError;
};

// The error of a non-2xx answer body.
GceError gce_error_from_body(long status, std::string_view body);
// The error of a DONE operation, or nullopt-like empty code when it has none ("" = succeeded).
// Reads operation.error.errors[0] (code, message); httpErrorStatusCode as the status.
bool operation_failed(const nlohmann::json& operation);
GceError operation_error(const nlohmann::json& operation);

// Capacity and quota: the offering (machine type x zone x provisioning model) is backed off and
// the next cheapest tried, as EC2's InsufficientInstanceCapacity. ZONE_RESOURCE_POOL_EXHAUSTED,
// ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS, REGION_RESOURCE_POOL_EXHAUSTED,
// RESOURCE_POOL_EXHAUSTED, QUOTA_EXCEEDED (operation codes); quotaExceeded and
// insufficientCapacity (call reasons); UNSUPPORTED_OPERATION (a Spot VM preempted while it was
// being created); and a bulkInsert that could not reach its minCount.
bool is_capacity_error(const GceError& e);
// Rate limits: 429, and 403 with reason rateLimitExceeded or userRateLimitExceeded (the bulk API
// answers so above 20 requests per second or 10 bulk operations at once). Retried with backoff.
bool is_rate_limit(long status, std::string_view code);

}  // namespace fitscale::gcp
