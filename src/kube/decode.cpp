#include "kube/decode.h"

#include "kube/decode_yaml.h"

namespace fitscale {
namespace {

// JSON objects and lists start with '{' (a '[' is refused by the JSON decoder with its place);
// anything else is YAML, which is also what a manifest starting with "apiVersion:" or "---" is.
bool looks_like_json(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{' || c == '[';
  }
  return false;
}

}  // namespace

DecodedObjects decode_objects(std::string_view text, std::string_view source,
                              const std::vector<std::string>& gpu_models, bool skip_bad_pods) {
  JsonDecoder decoder(gpu_models);
  if (looks_like_json(text)) return decoder.decode(text, source, skip_bad_pods);
  DecodedObjects out;
  for (const YamlObject& o : split_yaml_objects(text, source)) {
    decoder.decode_into(o.json, o.where, o.kind_hint, skip_bad_pods, out);
  }
  return out;
}

}  // namespace fitscale
