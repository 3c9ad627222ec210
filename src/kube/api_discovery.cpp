#include "kube/api_discovery.h"

#include <nlohmann/json.hpp>

namespace fitscale {

Served served_resource(ApiClient& client, const std::string& group_version,
                       const std::string& resource, std::string* error) {
  const HttpResponse r = client.get("/apis/" + group_version);
  if (r.status == 404) return Served::No;
  if (!r.ok()) {
    if (error != nullptr) *error = describe_failure(r);
    return Served::Unknown;
  }
  try {
    for (const auto& res :
         nlohmann::json::parse(r.body).value("resources", nlohmann::json::array())) {
      if (res.is_object() && res.value("name", std::string()) == resource) return Served::Yes;
    }
  } catch (const nlohmann::json::exception& e) {
    if (error != nullptr) *error = std::string("unreadable discovery answer: ") + e.what();
    return Served::Unknown;
  }
  return Served::No;
}

}  // namespace fitscale
