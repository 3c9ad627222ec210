#pragma once
// A failed call to a cloud's JSON API (Compute Engine, Azure Resource Manager): the HTTP status,
// the provider's error code and its message, and the few things every provider does the same way
// to classify one. Each provider keeps its own error type (gcp::GceError, azure::ArmError) so that
// a catch names whose error it is; which codes mean "no capacity" is the provider's (its docs).
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fitscale::cloud {

class CloudApiError : public std::runtime_error {
 public:
  CloudApiError(long status, std::string code, const std::string& message)
      : std::runtime_error(code + ": " + message), status_(status), code_(std::move(code)) {}
  long status() const { return status_; }  // 0: no HTTP answer, or a failed operation's
  const std::string& code() const { return code_; }

 private:
  long status_;
  std::string code_;
};

// What an answer that is not the provider's error JSON says: code "HTTP <status>" and the body's
// first 300 bytes as the message (a proxy's HTML page must not flood the log).
struct ErrorText {
  std::string code;
  std::string message;
};
ErrorText unread_error_body(long status, std::string_view body);

// Whether `code` is one of `codes` (a provider's list of capacity or quota codes).
bool code_is_one_of(std::string_view code, std::initializer_list<std::string_view> codes);

}  // namespace fitscale::cloud
