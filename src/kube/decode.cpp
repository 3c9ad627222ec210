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
  DecodedObjects out;
  if (looks_like_json(text)) {
    out = decoder.decode(text, source, skip_bad_pods);
  } else {
    for (const YamlObject& o : split_yaml_objects(text, source)) {
      decoder.decode_into(o.json, o.where, o.kind_hint, skip_bad_pods, out);
    }
  }
  apply_pod_groups(out.pods, out.pod_groups);
  return out;
}

}  // namespace fitscale
