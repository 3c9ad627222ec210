#pragma once
// YAML manifests into the JSON the decoder reads: each top-level object of a YAML stream (a
// document, or an item of a List document) becomes one JSON text with the line it starts on.
#include <string>
#include <string_view>
#include <vector>

namespace fitscale {

struct YamlObject {
  std::string json;
  std::string where;      // "cluster.yaml:14", for errors
  std::string kind_hint;  // kind of an item of a typed list (PodList -> Pod), else ""
};

// Throws InputError("cluster.yaml:3:7: invalid YAML: ...") on a syntax error.
std::vector<YamlObject> split_yaml_objects(std::string_view text, std::string_view source);

// One YAML value as JSON text. Plain scalars that read as JSON numbers, true/false or null become
// those; everything else, and every quoted scalar, becomes a string (YAML 1.2 core schema), so a
// quoted "1.0" label stays a string and an unquoted 1.0 label is refused like the API refuses it.
std::string yaml_to_json(std::string_view yaml_text);

}  // namespace fitscale
