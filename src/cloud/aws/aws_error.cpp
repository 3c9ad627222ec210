#include "cloud/aws/aws_error.h"

#include <array>
#include <pugixml.hpp>

namespace fitscale::aws {

AwsError::AwsError(std::string action, std::string code, std::string message, long http_status)
    : std::runtime_error(action + ": " + code + ": " + message +
                         (is_auth_error(code)
                              ? " (AWS refused the credentials: check AWS_ACCESS_KEY_ID / "
                                "AWS_SECRET_ACCESS_KEY or the profile's keys)"
                              : "")),
      action_(std::move(action)),
      code_(std::move(code)),
      message_(std::move(message)),
      http_status_(http_status) {}

DecodedError decode_error(std::string_view body, long http_status) {
  pugi::xml_document doc;
  if (doc.load_buffer(body.data(), body.size())) {
    // <Response><Errors><Error> (EC2), <ErrorResponse><Error> (Auto Scaling, IAM, STS), and
    // <ErrorResponse><Errors><Error> (seen from EC2-compatible servers): the first Error with a
    // Code.
    pugi::xml_node error = doc.select_node("//Error[Code]").node();
    if (error) {
      return {error.child_value("Code"), error.child_value("Message")};
    }
  }
  std::string snippet(body.substr(0, 200));
  return {"HTTP" + std::to_string(http_status), snippet.empty() ? "no response body" : snippet};
}

bool is_retryable(std::string_view code, long http_status) {
  static constexpr std::array kCodes = {
      "Throttling",       "ThrottlingException",      "RequestLimitExceeded",
      "RequestThrottled", "TooManyRequestsException", "RequestThrottledException",
      "InternalError",    "InternalFailure",          "ServiceUnavailable",
      "Unavailable",      "EC2ThrottledException",    "PriorRequestNotComplete"};
  for (const char* c : kCodes) {
    if (code == c) return true;
  }
  return http_status >= 500 || http_status == 0 || http_status == 429;
}

bool is_auth_error(std::string_view code) {
  return code == "AuthFailure" || code == "SignatureDoesNotMatch" ||
         code == "InvalidClientTokenId" || code == "UnrecognizedClientException" ||
         code == "IncompleteSignature" || code == "MissingAuthenticationToken" ||
         code == "ExpiredToken" || code == "InvalidAccessKeyId" || code == "AccessDenied" ||
         code == "UnauthorizedOperation";
}

bool is_capacity_error(std::string_view code) {
  // EC2's "no room for this launch right now" codes: out of capacity in the zone, or an account
  // quota (vCPUs, spot instances, instances) the launch would exceed. Retrying the same offering
  // every loop cannot help; backing it off lets the plan move to another type, zone or market.
  static constexpr std::string_view kCodes[] = {"InsufficientInstanceCapacity",
                                                "InsufficientHostCapacity",
                                                "InsufficientCapacityOnHost",
                                                "InsufficientReservedInstanceCapacity",
                                                "InsufficientFreeAddressesInSubnet",
                                                "MaxSpotInstanceCountExceeded",
                                                "InstanceLimitExceeded",
                                                "VcpuLimitExceeded",
                                                "SpotMaxPriceTooLow",
                                                "Unsupported"};
  for (const auto c : kCodes) {
    if (code == c) return true;
  }
  return false;
}

}  // namespace fitscale::aws
