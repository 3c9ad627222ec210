#pragma once
// Calls to Azure Resource Manager (docs/azure.md): a bearer token on every call; 429 answers
// waited out (Retry-After) and retried; x-ms-ratelimit-remaining-* noted; non-2xx answers thrown
// as ArmError with ARM's error code; long-running operations polled through
// Azure-AsyncOperation (preferred) or Location, each poll after the Retry-After the last answer
// asked for. The waits go through an injected Sleeper, so tests never sleep.
#include <string>

#include "cloud/aws/http_transport.h"
#include "cloud/azure/client_secret_credential.h"

namespace fitscale::azure {

struct ArmClientOptions {
  std::string endpoint = "https://management.azure.com";
  int max_throttle_retries = 4;        // 429s in a row before the call fails
  long default_retry_after_ms = 5000;  // a 429 or a poll without Retry-After waits this long
  int max_polls = 60;                  // a long-running operation polled at most this many times
  long max_wait_ms = 20000;            // the most one Retry-After is honoured for
};

class ArmClient {
 public:
  ArmClient(ArmClientOptions options, aws::HttpTransport& transport, TokenSource& token,
            aws::Sleeper& sleeper)
      : options_(std::move(options)), transport_(transport), token_(token), sleeper_(sleeper) {}

  // `target` is a path ("/subscriptions/...") under the endpoint, or an absolute URL (an
  // operation's, or a nextLink). Returns the 2xx answer; throws ArmError otherwise.
  aws::HttpExchange call(const std::string& method, const std::string& target,
                         const std::string& body = {});
  // Waits for the operation `started` began (201/202 with Azure-AsyncOperation or Location). True
  // when it succeeded (or was not asynchronous), false when still running after max_polls;
  // throws ArmError with the operation's error when it failed or was canceled.
  bool wait(const aws::HttpExchange& started);

  // The lowest x-ms-ratelimit-remaining-* of the last answer; -1 when it had none.
  long ratelimit_remaining() const { return ratelimit_remaining_; }
  int throttled() const { return throttled_; }  // 429s answered so far
  const std::string& endpoint() const { return options_.endpoint; }

 private:
  long retry_after_ms(const aws::HttpExchange& answer) const;
  ArmClientOptions options_;
  aws::HttpTransport& transport_;
  TokenSource& token_;
  aws::Sleeper& sleeper_;
  long ratelimit_remaining_ = -1;
  int throttled_ = 0;
};

}  // namespace fitscale::azure
