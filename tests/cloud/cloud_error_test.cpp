// The cloud error classification both JSON providers share (cloud/common/cloud_error.h): which
// answers back an offering off (capacity, quota) and what an unreadable answer says.
#include <gtest/gtest.h>

#include <string>

#include "cloud/azure/arm_error.h"
#include "cloud/gcp/gce_error.h"

namespace fitscale {
namespace {

std::string gce_body(const std::string& reason) {
  return R"({"error":{"code":403,"message":"m","errors":[{"reason":")" + reason + R"("}]}})";
}
std::string arm_body(const std::string& code, const std::string& message = "m") {
  return R"({"error":{"code":")" + code + R"(","message":")" + message + R"("}})";
}

TEST(CloudError, EveryCapacityCodeOfEachProviderBacksTheOfferingOff) {
  for (const char* code :
       {"ZONE_RESOURCE_POOL_EXHAUSTED", "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS",
        "REGION_RESOURCE_POOL_EXHAUSTED", "RESOURCE_POOL_EXHAUSTED", "QUOTA_EXCEEDED",
        "quotaExceeded", "insufficientCapacity", "UNSUPPORTED_OPERATION", "MinCountNotReached"}) {
    const gcp::GceError e = gcp::gce_error_from_body(403, gce_body(code));
    EXPECT_EQ(e.code(), code);
    EXPECT_TRUE(gcp::is_capacity_error(e)) << code;
  }
  for (const char* code : {"SkuNotAvailable", "AllocationFailed", "ZonalAllocationFailed",
                           "OverconstrainedAllocationRequest",
                           "OverconstrainedZonalAllocationRequest", "QuotaExceeded"}) {
    const azure::ArmError e = azure::arm_error_from_body(409, arm_body(code));
    EXPECT_EQ(e.code(), code);
    EXPECT_TRUE(azure::is_capacity_error(e)) << code;
  }
}

TEST(CloudError, OtherCodesAreNotCapacity) {
  // Codes are compared whole and with their case: a prefix or another provider's code is not one.
  for (const char* code : {"rateLimitExceeded", "PERMISSION_DENIED", "quota", "SkuNotAvailable"})
    EXPECT_FALSE(gcp::is_capacity_error(gcp::gce_error_from_body(403, gce_body(code)))) << code;
  for (const char* code : {"AuthorizationFailed", "quotaexceeded", "QUOTA_EXCEEDED"})
    EXPECT_FALSE(azure::is_capacity_error(azure::arm_error_from_body(409, arm_body(code)))) << code;
  // Azure reports a vCPU quota as OperationNotAllowed with the quota in its message.
  EXPECT_TRUE(azure::is_capacity_error(
      azure::arm_error_from_body(409, arm_body("OperationNotAllowed",
                                               "Operation could not be completed as it results in "
                                               "exceeding approved Total Regional Cores quota."))));
  EXPECT_FALSE(azure::is_capacity_error(
      azure::arm_error_from_body(409, arm_body("OperationNotAllowed", "the VM is deallocating"))));
}

TEST(CloudError, AnAnswerThatIsNotErrorJsonIsNamedByItsStatusAndBoundedExcerpt) {
  const std::string page = "<html>" + std::string(1000, 'x') + "</html>";
  const gcp::GceError g = gcp::gce_error_from_body(502, page);
  const azure::ArmError a = azure::arm_error_from_body(502, page);
  for (const cloud::CloudApiError* e : {static_cast<const cloud::CloudApiError*>(&g),
                                        static_cast<const cloud::CloudApiError*>(&a)}) {
    EXPECT_EQ(e->status(), 502);
    EXPECT_EQ(e->code(), "HTTP 502");
    EXPECT_EQ(std::string(e->what()), "HTTP 502: " + page.substr(0, 300));
    EXPECT_FALSE(gcp::is_capacity_error(g));
    EXPECT_FALSE(azure::is_capacity_error(a));
  }
}

}  // namespace
}  // namespace fitscale
