#include "cloud/azure/arm_client.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "cloud/azure/arm_error.h"

namespace fitscale::azure {
namespace {

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

long ArmClient::retry_after_ms(const aws::HttpExchange& answer) const {
  const std::string v = answer.header("retry-after");
  long seconds = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), seconds);
  // Retry-After may also be an HTTP date; ARM sends seconds. Anything else: the default.
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || seconds < 0)
    return options_.default_retry_after_ms;
  return std::min(seconds * 1000, options_.max_wait_ms);
}

aws::HttpExchange ArmClient::call(const std::string& method, const std::string& target,
                                  const std::string& body) {
  const std::string url = starts_with(target, "http://") || starts_with(target, "https://")
                              ? target
                              : options_.endpoint + target;
  for (int attempt = 0;; ++attempt) {
    aws::NameValues headers = {{"Authorization", "Bearer " + token_.token()},
                               {"Accept", "application/json"}};
    if (!body.empty()) headers.emplace_back("Content-Type", "application/json");
    aws::HttpExchange answer = transport_.exchange(method, url, headers, body);
    const aws::HttpResponse& r = answer.response;
    if (r.status == 0) throw ArmError(0, "TransportError", r.transport_error);
    long remaining = -1;
    for (const auto& [name, value] : answer.headers) {
      if (!starts_with(name, "x-ms-ratelimit-remaining-")) continue;
      long n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec == std::errc() && end == value.data() + value.size())
        remaining = remaining < 0 ? n : std::min(remaining, n);
    }
    ratelimit_remaining_ = remaining;
    if (r.status == 429) {
      ++throttled_;
      if (attempt >= options_.max_throttle_retries) throw arm_error_from_body(429, r.body);
      sleeper_.sleep_ms(retry_after_ms(answer));
      continue;
    }
    if (r.status < 200 || r.status >= 300) throw arm_error_from_body(r.status, r.body);
    return answer;
  }
}

bool ArmClient::wait(const aws::HttpExchange& started) {
  const std::string async_url = started.header("azure-asyncoperation");
  const std::string location = started.header("location");
  if (async_url.empty() && location.empty()) return true;  // finished with the answer
  aws::HttpExchange last = started;
  for (int poll = 0; poll < options_.max_polls; ++poll) {
    sleeper_.sleep_ms(retry_after_ms(last));
    if (!async_url.empty()) {
      // {"status": "InProgress" | "Succeeded" | "Failed" | "Canceled", "error": {...}}
      last = call("GET", async_url);
      const nlohmann::json j = nlohmann::json::parse(last.response.body, nullptr, false);
      const std::string status = j.is_object() && j.contains("status") && j["status"].is_string()
                                     ? j["status"].get<std::string>()
                                     : "";
      if (status == "Succeeded") return true;
      if (status == "Failed" || status == "Canceled") {
        ArmError e = arm_error_from_body(0, last.response.body);
        if (e.code().rfind("HTTP ", 0) == 0) throw ArmError(0, "Operation" + status, status);
        throw e;
      }
      continue;  // InProgress, or a status this client does not know: still running
    }
    // Location: 202 while running; 200/204 when done; an error status when it failed.
    last = call("GET", location);
    if (last.response.status != 202) return true;
  }
  return false;
}

}  // namespace fitscale::azure
