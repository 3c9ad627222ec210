#pragma once
// An error answered by an AWS API, with its AWS code ("InsufficientInstanceCapacity",
// "AuthFailure", ...), so callers decide on the code and never on the message text.
#include <stdexcept>
#include <string>
#include <string_view>

namespace fitscale::aws {

class AwsError : public std::runtime_error {
 public:
  AwsError(std::string action, std::string code, std::string message, long http_status);
  const std::string& action() const { return action_; }
  const std::string& code() const { return code_; }
  const std::string& aws_message() const { return message_; }
  long http_status() const { return http_status_; }

 private:
  std::string action_, code_, message_;
  long http_status_;
};

struct DecodedError {
  std::string code;
  std::string message;
};
// Reads every shape: EC2's <Response><Errors><Error><Code>, the <ErrorResponse><Error><Code>
// of Auto Scaling, IAM and STS. A body that is not one of them gives code "HTTP<status>".
DecodedError decode_error(std::string_view body, long http_status);

// Throttling (RequestLimitExceeded, Throttling, ...) and server-side failures: worth a retry.
bool is_retryable(std::string_view code, long http_status);
// The credentials or their signature were refused: the user must fix their keys.
bool is_auth_error(std::string_view code);
// The cloud has no room for this offering now: back it off and try the next one. An auth or
// validation error is not one.
bool is_capacity_error(std::string_view code);

}  // namespace fitscale::aws
