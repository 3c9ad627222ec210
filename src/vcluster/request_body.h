#pragma once
// What the virtual API server accepts as a request body, with kube-apiserver's limits: at most
// 3 MiB (413 RequestEntityTooLarge above), JSON nested at most 10,000 deep (its decoder's limit;
// deeper input is refused before any recursive code sees it), JSON, YAML or Kubernetes protobuf
// by Content-Type (415 UnsupportedMediaType for anything else, `text/plain` included).
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

namespace fitscale::vcluster {

inline constexpr std::size_t kMaxRequestBodyBytes = std::size_t{3} * 1024 * 1024;
inline constexpr int kMaxJsonDepth = 10000;

// Throws ApiError 400 naming the problem (syntax, invalid UTF-8, nesting too deep).
nlohmann::json parse_json_body(std::string_view body);

// The object a POST or PUT carries, decoded by its Content-Type (empty = JSON, as curl users
// expect). Throws ApiError 415 for an unsupported type, 400 for a malformed body.
nlohmann::json decode_object_body(std::string_view body, std::string_view content_type);

// The media type without parameters, lower-cased: "application/json; charset=utf-8" ->
// "application/json".
std::string media_type(std::string_view content_type);

}  // namespace fitscale::vcluster
