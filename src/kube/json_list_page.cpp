#include "kube/json_list_page.h"

#include <nlohmann/json.hpp>

#include "model/error.h"

namespace fitscale {

using json = nlohmann::json;

json parse_api_json(std::string_view text, const std::string& resource) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw InputError((resource.empty() ? std::string() : resource + ": ") +
                     "not JSON: " + e.what());
  }
}

std::string object_key(const json& item, ObjectScope scope) {
  if (!item.is_object()) return "?";
  const auto meta = item.find("metadata");
  if (meta == item.end() || !meta->is_object()) return "?";
  auto text = [&](const char* key) {
    const auto it = meta->find(key);
    return it != meta->end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (scope == ObjectScope::Cluster) return text("name");
  return text("namespace") + "/" + text("name");
}

void for_each_list_item(std::string_view page, const std::string& resource,
                        const std::function<void(const std::string& key, const json& item)>& each,
                        std::vector<std::pair<std::string, std::string>>& bad, ObjectScope scope) {
  const json j = parse_api_json(page, resource);
  if (!j.is_object()) throw InputError(resource + ": expected a list object");
  const auto items = j.find("items");
  if (items == j.end() || items->is_null()) return;  // an empty list may leave items out
  if (!items->is_array()) throw InputError(resource + ": items: expected an array");
  for (const json& item : *items) {
    const std::string key = object_key(item, scope);
    try {
      each(key, item);
    } catch (const InputError& e) {
      bad.emplace_back(key, e.what());
    } catch (const json::exception& e) {  // a field of the wrong type
      bad.emplace_back(key, e.what());
    }
  }
}

}  // namespace fitscale
