#pragma once
// Posting a JSON document to a URL, behind an interface so budget alerts can be tested with a
// fake and sent for real with libcurl (CurlWebhookSender).
#include <optional>
#include <string>

namespace fitscale {

class WebhookSender {
 public:
  virtual ~WebhookSender() = default;
  // POSTs `json` with Content-Type application/json. nullopt when the server answered 2xx;
  // otherwise what went wrong, for a log line.
  virtual std::optional<std::string> post_json(const std::string& url, const std::string& json) = 0;
};

class CurlWebhookSender final : public WebhookSender {
 public:
  // An alert must never stall the controller for long: the whole request is bounded.
  explicit CurlWebhookSender(long timeout_s = 10) : timeout_s_(timeout_s) {}
  std::optional<std::string> post_json(const std::string& url, const std::string& json) override;

 private:
  long timeout_s_;
};

}  // namespace fitscale
