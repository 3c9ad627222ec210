#pragma once
// The envelope of the Kubernetes list and watch protocols (not the objects inside, which the
// decoders in kube/decode* read): list metadata (resourceVersion, continue) and watch events
// ({"type": "ADDED", "object": {...}}).
#include <string>
#include <string_view>
#include <vector>

namespace fitscale {

struct ObjectMeta {
  std::string ns;
  std::string name;
  std::string uid;
  std::string resource_version;
  // "ns/name" for namespaced objects, "name" otherwise: the informer cache key.
  std::string key() const { return ns.empty() ? name : ns + "/" + name; }
};

struct ListMeta {
  std::string resource_version;
  std::string continue_token;
};

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

struct WatchEvent {
  WatchEventType type = WatchEventType::Added;
  std::string_view object_json;  // points into the line that was parsed
  ObjectMeta meta;               // of the object (for Bookmark only resource_version)
  long error_code = 0;           // Error events: the Status object's code (410 = Gone)
  std::string error_message;
};

// Reads only the list's top-level metadata; the items are left to the decoder.
// Throws InputError on malformed JSON.
ListMeta parse_list_meta(std::string_view json);
// Metadata of one object. Throws InputError.
ObjectMeta parse_object_meta(std::string_view object_json);
// Metadata of every item of a list page, in order (items that are not objects give an empty
// one). Throws InputError.
std::vector<ObjectMeta> parse_list_item_metas(std::string_view json);
// `line` must outlive the returned event (object_json points into it). Throws InputError.
WatchEvent parse_watch_event(std::string_view line);

}  // namespace fitscale
