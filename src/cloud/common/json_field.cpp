#include "cloud/common/json_field.h"

#include <nlohmann/json.hpp>

namespace fitscale::cloud {

std::string string_field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace fitscale::cloud
