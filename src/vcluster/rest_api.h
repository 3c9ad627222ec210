#pragma once
// The Kubernetes REST semantics of the virtual cluster, independent of the HTTP library:
// a request (method, path, query, body) in, a status code and JSON body out. Watches are
// streamed by watch_stream.h; this file answers everything else.
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "controller/interfaces.h"
#include "vcluster/admission_webhooks.h"
#include "vcluster/object_store.h"
#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {

// /api/v1/namespaces/NS/pods/NAME/eviction and friends, parsed.
struct ApiPath {
  const ResourceInfo* resource = nullptr;
  std::string ns;
  std::string name;
  std::string subresource;
  bool legacy_watch = false;  // /api/v1/watch/... form
};
// The non-empty segments of a URL path ("/api/v1/pods" -> api, v1, pods).
std::vector<std::string> split_path(const std::string& path);

// nullopt when `path` is not a resource path (discovery documents are answered elsewhere).
// Throws ApiError 404 for an unknown resource.
std::optional<ApiPath> parse_api_path(const ResourceRegistry& registry, const std::string& path);
std::optional<ApiPath> parse_api_path(const std::string& path);  // built-in kinds only

// A boolean query parameter as apimachinery reads one: absent, "0" or "false" (any case) is
// false, anything else (also "True", "1" and an empty value) true.
bool query_flag(const std::map<std::string, std::string>& query, const std::string& key);

struct ApiRequest {
  std::string method;  // GET POST PUT PATCH DELETE
  ApiPath path;
  std::map<std::string, std::string> query;
  std::string body;
  std::string content_type;
  std::string accept;  // "application/json;as=Table;..." asks for Table output (tables.h)
  // The caller serializes ApiResponse::shared_items itself (the HTTP server): a list of stored
  // objects is answered without copying them into `body`.
  bool shared_items_ok = false;
};

struct ApiResponse {
  ApiResponse() = default;
  ApiResponse(int status_code, nlohmann::json json_body,
              std::optional<std::string> text_body = std::nullopt,
              std::vector<std::string> warning_texts = {})
      : status(status_code),
        body(std::move(json_body)),
        text(std::move(text_body)),
        warnings(std::move(warning_texts)) {}
  int status = 200;
  nlohmann::json body;
  std::optional<std::string> text;    // a text/plain body instead of `body` (pods/log)
  std::vector<std::string> warnings;  // sent as `Warning: 299 - "..."` headers
  // With ApiRequest::shared_items_ok, a list's items as stored: `body` is the list without
  // "items", and these go into it as they are (no copy of 50,000 pods to serialize them).
  std::optional<std::vector<StoredObject>> shared_items;
};

class RestApi {
 public:
  // `webhooks` POSTs admission reviews (https_webhook_post() by default; tests pass a fake).
  RestApi(ObjectStore& store, const Clock& clock, WebhookPost webhooks = https_webhook_post());
  // Never throws: errors come back as metav1.Status with their code.
  ApiResponse handle(const ApiRequest& request);
  // The served resources: built-in kinds and established CustomResourceDefinitions.
  const ResourceRegistry& registry() const { return registry_; }
  // A pod that a controller of the cluster creates (the Job controller): kube-controller-manager
  // creates it through the API, so the mutating and validating webhooks see it as they see
  // kubectl's. Returns the pod as the webhooks left it; throws ApiError when one refuses.
  nlohmann::json admit_controller_pod(const std::string& ns, nlohmann::json pod);
  // Stored object -> what a client of `r` reads (for watches of converted resources).
  std::function<nlohmann::json(nlohmann::json)> presenter(const ResourceInfo& r) const {
    return [this, &r](nlohmann::json obj) { return to_client(r, std::move(obj)); };
  }

 private:
  ApiResponse get_or_list(const ApiRequest& req);
  ApiResponse create(const ApiRequest& req);
  ApiResponse replace(const ApiRequest& req);
  ApiResponse patch(const ApiRequest& req);
  ApiResponse apply(const ApiRequest& req);  // server-side apply (server_side_apply.h)
  ApiResponse remove(const ApiRequest& req);
  ApiResponse remove_collection(const ApiRequest& req);
  ApiResponse evict(const ApiRequest& req);
  ApiResponse bind(const ApiRequest& req);
  ApiResponse pod_log(const ApiRequest& req);
  ApiResponse get_scale(const ApiRequest& req);
  ApiResponse update_scale(const ApiRequest& req);
  nlohmann::json delete_object(const ResourceInfo& r, const std::string& ns,
                               const std::string& name, std::optional<long> grace_seconds,
                               bool dry_run = false);
  // Stores an update of `stored` (replace and patch): webhooks, dry run, finalizers, and a
  // definition's new resources. Throws Conflict when `stored` is no longer current.
  nlohmann::json write_update(const ApiRequest& req, const nlohmann::json& stored,
                              nlohmann::json next);
  void ensure_namespace(const std::string& ns);
  // Converts between what the client sent or reads and what the store keeps (events.k8s.io
  // Events are core Events; a custom object is read at the version asked for).
  nlohmann::json to_storage(const ResourceInfo& r, nlohmann::json obj) const;
  nlohmann::json to_client(const ResourceInfo& r, nlohmann::json obj) const;
  void serve_definition(const nlohmann::json& crd);

  ObjectStore& store_;
  const Clock& clock_;
  ResourceRegistry registry_;
  AdmissionWebhooks webhooks_;
  std::mutex eviction_mu_;  // one eviction at a time: the budget check and the decrement are atomic
};

// Parses a JSON request body; throws ApiError 400 naming the problem.
nlohmann::json parse_body(const std::string& body);

}  // namespace fitscale::vcluster
