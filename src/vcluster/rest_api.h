#pragma once
// The Kubernetes REST semantics of the virtual cluster, independent of the HTTP library:
// a request (method, path, query, body) in, a status code and JSON body out. Watches are
// streamed by watch_stream.h; this file answers everything else.
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "controller/interfaces.h"
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
std::optional<ApiPath> parse_api_path(const std::string& path);

struct ApiRequest {
  std::string method;  // GET POST PUT PATCH DELETE
  ApiPath path;
  std::map<std::string, std::string> query;
  std::string body;
  std::string content_type;
  std::string accept;  // "application/json;as=Table;..." asks for Table output (tables.h)
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
};

class RestApi {
 public:
  RestApi(ObjectStore& store, const Clock& clock);
  // Never throws: errors come back as metav1.Status with their code.
  ApiResponse handle(const ApiRequest& request);

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
  nlohmann::json delete_object(const ResourceInfo& r, const std::string& ns,
                               const std::string& name, std::optional<long> grace_seconds);
  void ensure_namespace(const std::string& ns);

  ObjectStore& store_;
  const Clock& clock_;
  std::mutex eviction_mu_;  // one eviction at a time: the budget check and the decrement are atomic
};

// Parses a JSON request body; throws ApiError 400 naming the problem.
nlohmann::json parse_body(const std::string& body);

}  // namespace fitscale::vcluster
