#pragma once
// Reading the API's answers with nlohmann::json for the informers of custom resources (PodGroups,
// JobSets, ProvisioningRequests, Budgets, ...): one place that knows what a list page looks like
// and what a bad item does to it (it is reported and skipped; the others still read).
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fitscale {

// The body parsed, or InputError "<resource>: not JSON: ..." ("not JSON: ..." when `resource`
// is empty: a watch event's object, which the informer names itself).
nlohmann::json parse_api_json(std::string_view text, const std::string& resource = "");

enum class ObjectScope { Namespaced, Cluster };

// The informer's cache key of a listed object, also what messages about it name: "namespace/name"
// (Namespaced) or "name" (Cluster), read without judging the object: "?" when it has no metadata
// object, a name or namespace that is no string reads as "".
std::string object_key(const nlohmann::json& item, ObjectScope scope = ObjectScope::Namespaced);

// Every item of one list page (`{"items": [...]}`) handed to `each` with its key. An item that
// `each` refuses (InputError, or a json::exception from a field of the wrong type) is appended to
// `bad` as (key, error) and skipped. A page that is no JSON object, or whose items are no array,
// is an InputError naming `resource`.
void for_each_list_item(
    std::string_view page, const std::string& resource,
    const std::function<void(const std::string& key, const nlohmann::json& item)>& each,
    std::vector<std::pair<std::string, std::string>>& bad,
    ObjectScope scope = ObjectScope::Namespaced);

// The same, collecting what `decode` makes of each item.
template <class T, class Decode>
void decode_list_page(std::string_view page, const std::string& resource, const Decode& decode,
                      std::vector<std::pair<std::string, T>>& items,
                      std::vector<std::pair<std::string, std::string>>& bad,
                      ObjectScope scope = ObjectScope::Namespaced) {
  for_each_list_item(
      page, resource,
      [&](const std::string& key, const nlohmann::json& item) {
        items.emplace_back(key, decode(item));
      },
      bad, scope);
}

}  // namespace fitscale
