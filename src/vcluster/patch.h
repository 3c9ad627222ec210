#pragma once
// PATCH bodies: JSON Patch (RFC 6902), JSON Merge Patch (RFC 7386), and strategic merge patch,
// which kubectl sends for cordon, label and annotate. Strategic merge is applied as a merge patch
// after dropping its `$`-directives: exact for maps and scalars, which is what those commands
// change; a list in a strategic patch replaces the whole list.
#include <nlohmann/json.hpp>
#include <string_view>

namespace fitscale::vcluster {

// `content_type` selects the kind; throws ApiError 415 for an unknown one, 422/400 for a bad body.
nlohmann::json apply_patch(const nlohmann::json& document, const nlohmann::json& patch,
                           std::string_view content_type);

}  // namespace fitscale::vcluster
