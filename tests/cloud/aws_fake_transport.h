#pragma once
// A scripted HttpTransport for the AWS client tests: answers in order, records what was sent.
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "cloud/aws/http_transport.h"
#include "controller/interfaces.h"

namespace fitscale::aws::testing {

struct SentRequest {
  std::string url;
  NameValues headers;
  std::string body;
};

class FakeTransport final : public HttpTransport {
 public:
  std::deque<HttpResponse> answers;
  std::vector<SentRequest> sent;
  HttpResponse post(const std::string& url, const NameValues& headers,
                    const std::string& body) override {
    sent.push_back({url, headers, body});
    if (answers.empty())
      return {500, "<Response><Errors><Error><Code>NoScript</Code></Error></Errors></Response>",
              ""};
    auto a = answers.front();
    answers.pop_front();
    return a;
  }
};

// The fields of a recorded query-API body (still URL-encoded), to check what was asked.
inline std::map<std::string, std::string> form_fields(const std::string& body) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start <= body.size()) {
    size_t amp = body.find('&', start);
    if (amp == std::string::npos) amp = body.size();
    const std::string kv = body.substr(start, amp - start);
    const size_t eq = kv.find('=');
    out[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
    start = amp + 1;
  }
  return out;
}

class RecordingSleeper final : public Sleeper {
 public:
  std::vector<long> waits;
  void sleep_ms(long ms) override { waits.push_back(ms); }
};

class FixedClock final : public Clock {
 public:
  Time t = 1440938160;
  Time now() const override { return t; }
};

}  // namespace fitscale::aws::testing
