#pragma once
#include "cloud/aws/http_transport.h"

namespace fitscale::aws {

// libcurl, one easy handle per request (the AWS calls of a loop are few and small).
class CurlTransport final : public HttpTransport {
 public:
  explicit CurlTransport(long timeout_ms = 30000, long connect_timeout_ms = 10000)
      : timeout_ms_(timeout_ms), connect_timeout_ms_(connect_timeout_ms) {}
  HttpResponse post(const std::string& url, const NameValues& headers,
                    const std::string& body) override {
    return send("POST", url, headers, body);
  }
  HttpResponse send(const std::string& method, const std::string& url, const NameValues& headers,
                    const std::string& body) override {
    return exchange(method, url, headers, body).response;
  }
  HttpExchange exchange(const std::string& method, const std::string& url,
                        const NameValues& headers, const std::string& body) override;

 private:
  long timeout_ms_;
  long connect_timeout_ms_;
};

}  // namespace fitscale::aws
