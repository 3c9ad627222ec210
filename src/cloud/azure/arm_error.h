#pragma once
// Errors from Azure Resource Manager: the body {"error": {"code", "message"}} of a failed call or
// of a failed long-running operation (docs/azure.md), and which of them mean "no capacity here".
#include <string>
#include <string_view>

#include "cloud/common/cloud_error.h"

namespace fitscale::azure {

class ArmError : public cloud::CloudApiError {
 public:
  using CloudApiError::CloudApiError;
};

// The error of an ARM answer body; code "HTTP <status>" when the body has none.
ArmError arm_error_from_body(long status, std::string_view body);

// Capacity and quota errors: the offering (size x zone x priority) is backed off and the next
// cheapest tried, as EC2's InsufficientInstanceCapacity. SkuNotAvailable, AllocationFailed,
// ZonalAllocationFailed, OverconstrainedAllocationRequest, OverconstrainedZonalAllocationRequest,
// QuotaExceeded, and OperationNotAllowed when its message is about a quota (Azure reports
// exceeding a vCPU quota that way).
bool is_capacity_error(const ArmError& e);

}  // namespace fitscale::azure
