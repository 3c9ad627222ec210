#include "vcluster/patch.h"

#include "vcluster/api_error.h"
#include "vcluster/request_body.h"
#include "vcluster/strategic_merge.h"

namespace fitscale::vcluster {

namespace {

bool is_patch_type(const std::string& kind) {
  return kind == "application/json-patch+json" || kind == "application/merge-patch+json" ||
         kind == "application/strategic-merge-patch+json";
}

ApiError unsupported_patch_type(const std::string& kind) {
  return ApiError(415, "UnsupportedMediaType",
                  "the body of the request was in an unknown format - accepted media types "
                  "include: application/json-patch+json, application/merge-patch+json, "
                  "application/strategic-merge-patch+json, application/apply-patch+yaml (got \"" +
                      kind + "\")");
}

}  // namespace

bool is_apply_patch(std::string_view content_type) {
  return media_type(content_type) == "application/apply-patch+yaml";
}

void check_patch_content_type(std::string_view content_type) {
  const std::string kind = media_type(content_type);
  if (!is_patch_type(kind)) throw unsupported_patch_type(kind);
}

nlohmann::json apply_patch(const nlohmann::json& document, const nlohmann::json& patch,
                           std::string_view content_type) {
  const std::string kind = media_type(content_type);
  if (kind == "application/json-patch+json") {
    if (!patch.is_array()) throw bad_request("a JSON patch must be an array of operations");
    try {
      return document.patch(patch);
    } catch (const nlohmann::json::exception& e) {
      throw ApiError(422, "Invalid",
                     std::string("the JSON patch could not be applied: ") + e.what());
    }
  }
  if (kind == "application/merge-patch+json") {
    if (!patch.is_object()) throw bad_request("a merge patch must be a JSON object");
    nlohmann::json out = document;
    out.merge_patch(patch);
    return out;
  }
  if (kind == "application/strategic-merge-patch+json") return strategic_merge(document, patch);
  throw unsupported_patch_type(kind);
}

}  // namespace fitscale::vcluster
