#pragma once
// One connection to the Kubernetes API server (libcurl easy handle, so keep-alive and TLS
// sessions are reused). Not thread-safe by design: every thread that talks to the API server
// (each informer, the leader elector, the controller's writes) owns its own ApiClient.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "kube/kubeconfig.h"

namespace fitscale {

struct HttpResponse {
  long status = 0;  // 0 = the request never got an answer (see error)
  std::string body;
  std::string error;  // transport error (connection refused, TLS, timeout); empty on an answer
  // The error is the TLS handshake's: a server certificate the kubeconfig's CA does not verify,
  // a client certificate the server refused, no common protocol. Retrying does not fix it.
  bool tls_failure = false;
  bool ok() const { return status >= 200 && status < 300; }
};

// A failed answer in one line for logs: the transport error, or the status code with the
// Kubernetes Status message when the body is one.
std::string describe_failure(const HttpResponse& r);

// How a watch stream ended.
enum class StreamEnd {
  Closed,   // the server ended the response (timeoutSeconds, restart): re-watch
  Stopped,  // the caller's stop flag was set
  Aborted,  // the line callback asked to stop (e.g. a 410 ERROR event)
  Failed,   // transport error or a non-2xx status (see the response)
};

struct ApiClientOptions {
  long connect_timeout_s = 10;
  long request_timeout_s = 30;
  // A watch that delivers no byte for this long is considered dead and reconnected.
  long watch_idle_timeout_s = 120;
  std::string user_agent = "fitscale/0.1";
};

class ApiClient {
 public:
  explicit ApiClient(KubeConfig config, ApiClientOptions options = {});
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  HttpResponse get(const std::string& path);
  // JSON request; content_type for PATCH is "application/merge-patch+json" etc.
  HttpResponse send(const std::string& method, const std::string& path, const std::string& body,
                    const std::string& content_type = "application/json");

  // Streams a chunked response line by line (watch). `on_line` returns false to abort.
  // On Failed, `failure` holds the status/body/error.
  StreamEnd stream(const std::string& path, const std::function<bool(std::string_view)>& on_line,
                   const std::atomic<bool>& stop, HttpResponse* failure = nullptr);

  const KubeConfig& config() const { return config_; }

 private:
  struct Handle;
  std::string describe(int curl_code) const;  // the failure in curl's words
  KubeConfig config_;
  ApiClientOptions options_;
  std::unique_ptr<Handle> handle_;
};

// Percent-encodes a query parameter value (continue tokens, selectors).
std::string url_encode(std::string_view s);

}  // namespace fitscale
