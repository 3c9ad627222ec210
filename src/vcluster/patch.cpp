#include "vcluster/patch.h"

#include "vcluster/api_error.h"

namespace fitscale::vcluster {
namespace {

nlohmann::json strip_directives(const nlohmann::json& j) {
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!it.key().empty() && it.key()[0] == '$') continue;
      out[it.key()] = strip_directives(it.value());
    }
    return out;
  }
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : j) out.push_back(strip_directives(e));
    return out;
  }
  return j;
}

}  // namespace

nlohmann::json apply_patch(const nlohmann::json& document, const nlohmann::json& patch,
                           std::string_view content_type) {
  auto semi = content_type.find(';');
  std::string_view kind = content_type.substr(0, semi);
  if (kind == "application/json-patch+json") {
    if (!patch.is_array()) throw bad_request("a JSON patch must be an array of operations");
    try {
      return document.patch(patch);
    } catch (const nlohmann::json::exception& e) {
      throw ApiError(422, "Invalid",
                     std::string("the JSON patch could not be applied: ") + e.what());
    }
  }
  if (kind == "application/merge-patch+json" || kind == "application/strategic-merge-patch+json") {
    if (!patch.is_object()) throw bad_request("a merge patch must be a JSON object");
    nlohmann::json out = document;
    out.merge_patch(kind == "application/merge-patch+json" ? patch : strip_directives(patch));
    return out;
  }
  throw ApiError(415, "UnsupportedMediaType",
                 "the body of the request was in an unknown format - accepted media types include: "
                 "application/json-patch+json, application/merge-patch+json, "
                 "application/strategic-merge-patch+json");
}

}  // namespace fitscale::vcluster
