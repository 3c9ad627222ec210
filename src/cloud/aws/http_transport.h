#pragma once
// The one HTTP call the query protocol needs, behind an interface so the client's retries,
// pagination and error decoding are tested with a scripted fake, and libcurl stays at the edge.
#include <string>
#include <string_view>

#include "cloud/aws/sigv4.h"

namespace fitscale::aws {

struct HttpResponse {
  long status = 0;  // 0 when the request never got an answer
  std::string body;
  std::string transport_error;  // curl's message when status == 0
};

// A response with its headers, names in lower case: Azure tells long-running operations and
// throttling in headers (Azure-AsyncOperation, Location, Retry-After, x-ms-ratelimit-*).
struct HttpExchange {
  HttpResponse response;
  NameValues headers;
  // The value of header `name` (lower case), or "" when absent.
  std::string header(std::string_view name) const {
    for (const auto& [n, v] : headers) {
      if (n == name) return v;
    }
    return {};
  }
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual HttpResponse post(const std::string& url, const NameValues& headers,
                            const std::string& body) = 0;
  // Any method ("GET", "PUT", "POST"): the credential endpoints (instance metadata, container
  // credentials) are not query APIs. A transport that only posts answers other methods with a
  // transport error.
  virtual HttpResponse send(const std::string& method, const std::string& url,
                            const NameValues& headers, const std::string& body) {
    if (method == "POST") return post(url, headers, body);
    return {0, "", method + " is not supported by this transport"};
  }
  // send() with the response's headers (a transport that keeps none answers with none).
  virtual HttpExchange exchange(const std::string& method, const std::string& url,
                                const NameValues& headers, const std::string& body) {
    return {send(method, url, headers, body), {}};
  }
};

// Waits between retries; injected so tests never sleep.
class Sleeper {
 public:
  virtual ~Sleeper() = default;
  virtual void sleep_ms(long ms) = 0;
};

class ThreadSleeper final : public Sleeper {
 public:
  void sleep_ms(long ms) override;
};

}  // namespace fitscale::aws
