#pragma once
// The API's JSON as a YAML tree with no line marks, for the readers the config file and
// manifests use (errors then name the object, not a line of a text the user never saw).
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

namespace fitscale {

YAML::Node yaml_of_json(const nlohmann::json& j);

}  // namespace fitscale
