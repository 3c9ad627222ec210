#include "vcluster/api_error.h"

namespace fitscale::vcluster {

nlohmann::json status_json(const ApiError& e, const std::string& resource,
                           const std::string& name) {
  nlohmann::json s = {
      {"kind", "Status"},    {"apiVersion", "v1"},  {"metadata", nlohmann::json::object()},
      {"status", "Failure"}, {"message", e.what()}, {"reason", e.reason()},
      {"code", e.code()}};
  if (!resource.empty() || !name.empty()) {
    s["details"] = {{"name", name}, {"kind", resource}};
  }
  for (const auto& [k, v] : e.details.items()) s["details"][k] = v;
  for (const auto& c : e.causes()) s["details"]["causes"].push_back(c);
  return s;
}

nlohmann::json success_status() {
  return {{"kind", "Status"},
          {"apiVersion", "v1"},
          {"metadata", nlohmann::json::object()},
          {"status", "Success"}};
}

}  // namespace fitscale::vcluster
