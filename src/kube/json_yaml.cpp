#include "kube/json_yaml.h"

namespace fitscale {

YAML::Node yaml_of_json(const nlohmann::json& j) {
  using json = nlohmann::json;
  switch (j.type()) {
    case json::value_t::object: {
      YAML::Node n(YAML::NodeType::Map);
      for (const auto& [k, v] : j.items()) n[k] = yaml_of_json(v);
      return n;
    }
    case json::value_t::array: {
      YAML::Node n(YAML::NodeType::Sequence);
      for (const auto& v : j) n.push_back(yaml_of_json(v));
      return n;
    }
    case json::value_t::string:
      return YAML::Node(j.get<std::string>());
    case json::value_t::null:
      return YAML::Node(YAML::NodeType::Null);
    default:
      return YAML::Node(j.dump());  // numbers and booleans as the API wrote them
  }
}

}  // namespace fitscale
