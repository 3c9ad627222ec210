#pragma once
// PATCH bodies: JSON Patch (RFC 6902), JSON Merge Patch (RFC 7386), and strategic merge patch
// (strategic_merge.h), which kubectl sends for apply, cordon, label and annotate. Server-side
// apply bodies (application/apply-patch+yaml) are handled by server_side_apply.h.
#include <nlohmann/json.hpp>
#include <string_view>

namespace fitscale::vcluster {

// True for application/apply-patch+yaml (server-side apply).
bool is_apply_patch(std::string_view content_type);
// Throws ApiError 415 unless `content_type` is one of the three patch types.
void check_patch_content_type(std::string_view content_type);

// `content_type` selects the kind; throws ApiError 415 for an unknown one, 422/400 for a bad body.
nlohmann::json apply_patch(const nlohmann::json& document, const nlohmann::json& patch,
                           std::string_view content_type);

}  // namespace fitscale::vcluster
