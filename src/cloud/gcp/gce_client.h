#pragma once
// Calls to the Compute Engine REST API (docs/gcp.md): a bearer token on every call; rate limits
// (429, 403 rateLimitExceeded) and 503s retried with exponential backoff; non-2xx answers thrown
// as GceError; zone operations waited for through zoneOperations.wait until DONE. The waits go
// through an injected Sleeper, so tests never sleep.
#include <nlohmann/json.hpp>
#include <string>

#include "cloud/aws/http_transport.h"
#include "cloud/common/token_source.h"

namespace fitscale::gcp {

struct GceClientOptions {
  std::string endpoint = "https://compute.googleapis.com/compute/v1";
  int max_retries = 5;           // rate-limited or unavailable answers in a row before failing
  long first_backoff_ms = 1000;  // doubled after each retry ...
  long max_backoff_ms = 32000;   // ... up to this
  int max_operation_waits = 10;  // zoneOperations.wait calls (each returns within ~2 minutes)
};

class GceClient {
 public:
  GceClient(GceClientOptions options, aws::HttpTransport& transport, cloud::TokenSource& token,
            aws::Sleeper& sleeper)
      : options_(std::move(options)), transport_(transport), token_(token), sleeper_(sleeper) {}

  // `target` is a path ("/projects/...") under the endpoint, or an absolute URL. Returns the
  // parsed 2xx answer (null for an empty body); throws GceError otherwise.
  nlohmann::json call(const std::string& method, const std::string& target,
                      const std::string& body = {});
  // Waits for a zone operation of `project` (an Operation resource) until its status is DONE: true
  // when it is, with `operation` replaced by the DONE one; false when still running after
  // max_operation_waits. The caller reads operation.error (gce_error.h).
  bool wait(nlohmann::json& operation, const std::string& project);

  int rate_limited() const { return rate_limited_; }  // answers retried for a rate limit so far
  const std::string& endpoint() const { return options_.endpoint; }

 private:
  GceClientOptions options_;
  aws::HttpTransport& transport_;
  cloud::TokenSource& token_;
  aws::Sleeper& sleeper_;
  int rate_limited_ = 0;
};

}  // namespace fitscale::gcp
