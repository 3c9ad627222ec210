#include "cloud/gcp/gce_client.h"

#include <algorithm>

#include "cloud/gcp/gce_error.h"

namespace fitscale::gcp {
namespace {

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string str(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

nlohmann::json GceClient::call(const std::string& method, const std::string& target,
                               const std::string& body) {
  const std::string url = starts_with(target, "http://") || starts_with(target, "https://")
                              ? target
                              : options_.endpoint + target;
  long backoff = options_.first_backoff_ms;
  for (int attempt = 0;; ++attempt) {
    aws::NameValues headers = {{"Authorization", "Bearer " + token_.token()},
                               {"Accept", "application/json"}};
    if (!body.empty() || method == "POST") headers.emplace_back("Content-Type", "application/json");
    const aws::HttpResponse r = transport_.send(method, url, headers, body);
    if (r.status == 0) throw GceError(0, "TransportError", r.transport_error);
    if (r.status >= 200 && r.status < 300) {
      if (r.body.empty()) return nullptr;
      nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
      if (j.is_discarded()) throw GceError(r.status, "BadResponse", "the answer is not JSON");
      return j;
    }
    GceError e = gce_error_from_body(r.status, r.body);
    const bool rate_limit = is_rate_limit(r.status, e.code());
    // 503 backendError is transient; 503 insufficientCapacity is a capacity answer, not retried.
    const bool unavailable = r.status == 503 && !is_capacity_error(e);
    if (!rate_limit && !unavailable) throw e;
    if (rate_limit) ++rate_limited_;
    if (attempt >= options_.max_retries) throw e;
    sleeper_.sleep_ms(backoff);
    backoff = std::min(backoff * 2, options_.max_backoff_ms);
  }
}

bool GceClient::wait(nlohmann::json& operation, const std::string& project) {
  for (int i = 0; i < options_.max_operation_waits; ++i) {
    if (str(operation, "status") == "DONE") return true;
    // zoneOperations.wait: POST /projects/{project}/zones/{zone}/operations/{name}/wait answers
    // when the operation is DONE or after about two minutes, whichever is first. The operation's
    // `zone` is a URL (or a bare name in some answers); its name is `name`.
    const std::string zone = str(operation, "zone");
    const std::string name = str(operation, "name");
    if (zone.empty() || name.empty())
      throw GceError(0, "BadOperation", "an operation without a zone or name");
    operation = call("POST", "/projects/" + project + "/zones/" + zone.substr(zone.rfind('/') + 1) +
                                 "/operations/" + name + "/wait");
  }
  return str(operation, "status") == "DONE";
}

}  // namespace fitscale::gcp
