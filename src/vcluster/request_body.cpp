#include "vcluster/request_body.h"

#include <cctype>
#include <string>

#include "kube/decode_yaml.h"
#include "model/error.h"
#include "vcluster/api_error.h"
#include "vcluster/protobuf_body.h"

namespace fitscale::vcluster {
namespace {

// The deepest nesting of arrays and objects in `body`, stopping early past `limit`. Brackets
// inside strings do not count.
int nesting_depth(std::string_view body, int limit) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

constexpr int kMaxYamlDepth = 256;  // as the YAML-to-JSON converter (kube/decode_yaml)

ApiError unsupported_media_type(std::string_view type) {
  return ApiError(415, "UnsupportedMediaType",
                  "the body of the request was in an unknown format - accepted media types "
                  "include: application/json, application/yaml, "
                  "application/vnd.kubernetes.protobuf (got \"" +
                      std::string(type) + "\")");
}

}  // namespace

std::string media_type(std::string_view content_type) {
  std::string out(content_type.substr(0, content_type.find(';')));
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

nlohmann::json parse_json_body(std::string_view body) {
  if (nesting_depth(body, kMaxJsonDepth) > kMaxJsonDepth) {
    throw bad_request("the request body is nested deeper than " + std::to_string(kMaxJsonDepth) +
                      " levels (exceeded max depth)");
  }
  try {
    return nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann's lexer also refuses ill-formed UTF-8 inside strings, so that lands here too.
    throw bad_request(std::string("the request body is not valid JSON: ") + e.what());
  }
}

nlohmann::json decode_object_body(std::string_view body, std::string_view content_type) {
  const std::string type = media_type(content_type);
  if (type.empty() || type == "application/json") return parse_json_body(body);
  if (type == "application/vnd.kubernetes.protobuf") return decode_protobuf_body(body);
  if (type == "application/yaml") {
    // yaml-cpp's parser recurses per level: refuse deep flow collections before it sees them.
    if (nesting_depth(body, kMaxYamlDepth) > kMaxYamlDepth) {
      throw bad_request("the request body is nested deeper than " + std::to_string(kMaxYamlDepth) +
                        " levels (exceeded max depth)");
    }
    std::string json;
    try {
      json = yaml_to_json(body);
    } catch (const InputError& e) {
      throw bad_request(std::string("the request body is not valid YAML: ") + e.what());
    }
    return parse_json_body(json);
  }
  throw unsupported_media_type(type);
}

}  // namespace fitscale::vcluster
