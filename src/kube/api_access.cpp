#include "kube/api_access.h"

#include <nlohmann/json.hpp>

#include "model/error.h"

namespace fitscale {
namespace {

// Which credentials the refused request carried, so the message says what to fix.
std::string credentials(const KubeConfig& c) {
  if (!c.client_cert_pem.empty() && !c.token.empty())
    return "a client certificate and the kubeconfig's token";
  if (!c.client_cert_pem.empty()) return "a client certificate";
  if (!c.token.empty()) return "the kubeconfig's token";
  return "no credentials";
}

// The Status message of a Kubernetes error answer; the raw body when it is not one.
std::string status_message(const std::string& body) {
  try {
    auto j = nlohmann::json::parse(body);
    if (j.is_object() && j.contains("message") && j["message"].is_string()) {
      return j["message"].get<std::string>();
    }
  } catch (const std::exception&) {
  }
  return body.substr(0, 200);
}

}  // namespace

void check_api_access(const KubeConfig& config, const ApiClientOptions& options) {
  ApiClient client(config, options);
  const HttpResponse r = client.get("/api/v1/nodes?limit=1");
  if (r.tls_failure) {
    throw InputError(config.source + ": TLS with " + config.server + " failed: " + r.error);
  }
  if (r.status == 401 || r.status == 403) {
    std::string message = status_message(r.body);
    throw InputError(config.source + ": " + config.server + " refused a request with " +
                     credentials(config) + ": HTTP " + std::to_string(r.status) +
                     (message.empty() ? "" : " " + message));
  }
}

}  // namespace fitscale
