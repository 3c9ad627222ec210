#include "kube/watch_event.h"

#include <simdjson.h>

#include "model/error.h"

namespace fitscale {
namespace {

namespace od = simdjson::ondemand;

std::string str(od::value v) {
  std::string_view s;
  if (v.get_string().get(s)) return {};
  return std::string(s);
}

ObjectMeta meta_of(od::object metadata) {
  ObjectMeta m;
  for (auto field : metadata) {
    std::string_view key;
    if (field.unescaped_key().get(key)) continue;
    od::value v;
    if (field.value().get(v)) continue;
    if (key == "name")
      m.name = str(v);
    else if (key == "namespace")
      m.ns = str(v);
    else if (key == "uid")
      m.uid = str(v);
    else if (key == "resourceVersion")
      m.resource_version = str(v);
  }
  return m;
}

}  // namespace

ListMeta parse_list_meta(std::string_view json) {
  od::parser parser;
  simdjson::padded_string padded(json);
  ListMeta out;
  try {
    od::document doc = parser.iterate(padded);
    od::object root = doc.get_object();
    for (auto field : root) {
      std::string_view key = field.unescaped_key();
      if (key != "metadata") continue;
      od::object metadata = field.value().get_object();
      for (auto f : metadata) {
        std::string_view k = f.unescaped_key();
        if (k == "resourceVersion")
          out.resource_version = str(f.value());
        else if (k == "continue")
          out.continue_token = str(f.value());
      }
      break;  // the items after metadata are the decoder's business
    }
  } catch (const simdjson::simdjson_error& e) {
    throw InputError(std::string("list response: malformed JSON: ") + e.what());
  }
  return out;
}

std::vector<ObjectMeta> parse_list_item_metas(std::string_view json) {
  od::parser parser;
  simdjson::padded_string padded(json);
  std::vector<ObjectMeta> out;
  try {
    od::document doc = parser.iterate(padded);
    od::object root = doc.get_object();
    for (auto field : root) {
      std::string_view key = field.unescaped_key();
      if (key != "items") continue;
      for (auto item : field.value().get_array()) {
        ObjectMeta m;
        od::object obj;
        if (!item.get_object().get(obj)) {
          for (auto f : obj) {
            std::string_view k = f.unescaped_key();
            if (k == "metadata") {
              m = meta_of(f.value().get_object());
              break;
            }
          }
        }
        out.push_back(std::move(m));
      }
      break;
    }
  } catch (const simdjson::simdjson_error& e) {
    throw InputError(std::string("list response: malformed JSON: ") + e.what());
  }
  return out;
}

ObjectMeta parse_object_meta(std::string_view object_json) {
  od::parser parser;
  simdjson::padded_string padded(object_json);
  try {
    od::document doc = parser.iterate(padded);
    od::object root = doc.get_object();
    for (auto field : root) {
      std::string_view key = field.unescaped_key();
      if (key == "metadata") return meta_of(field.value().get_object());
    }
  } catch (const simdjson::simdjson_error& e) {
    throw InputError(std::string("object: malformed JSON: ") + e.what());
  }
  return {};
}

WatchEvent parse_watch_event(std::string_view line) {
  od::parser parser;
  simdjson::padded_string padded(line);
  WatchEvent ev;
  std::string type;
  std::size_t obj_offset = std::string_view::npos, obj_len = 0;
  try {
    od::document doc = parser.iterate(padded);
    od::object root = doc.get_object();
    for (auto field : root) {
      std::string_view key = field.unescaped_key();
      if (key == "type") {
        type = str(field.value());
      } else if (key == "object") {
        od::object obj = field.value().get_object();
        std::string_view raw = obj.raw_json();
        obj_offset = static_cast<std::size_t>(raw.data() - padded.data());
        obj_len = raw.size();
      }
    }
  } catch (const simdjson::simdjson_error& e) {
    throw InputError(std::string("watch event: malformed JSON: ") + e.what());
  }
  if (obj_offset == std::string_view::npos) throw InputError("watch event: no object");
  ev.object_json = line.substr(obj_offset, obj_len);
  if (type == "ADDED")
    ev.type = WatchEventType::Added;
  else if (type == "MODIFIED")
    ev.type = WatchEventType::Modified;
  else if (type == "DELETED")
    ev.type = WatchEventType::Deleted;
  else if (type == "BOOKMARK")
    ev.type = WatchEventType::Bookmark;
  else if (type == "ERROR")
    ev.type = WatchEventType::Error;
  else
    throw InputError("watch event: unknown type '" + type + "'");

  if (ev.type == WatchEventType::Error) {
    // A metav1.Status: {"kind":"Status","code":410,"reason":"Expired","message":"..."}
    simdjson::padded_string obj(ev.object_json);
    try {
      od::document doc = parser.iterate(obj);
      od::object root = doc.get_object();
      for (auto field : root) {
        std::string_view key = field.unescaped_key();
        if (key == "code")
          ev.error_code = static_cast<long>(field.value().get_int64());
        else if (key == "message")
          ev.error_message = str(field.value());
      }
    } catch (const simdjson::simdjson_error& e) {
      throw InputError(std::string("watch ERROR event: malformed Status: ") + e.what());
    }
  } else {
    ev.meta = parse_object_meta(ev.object_json);
  }
  return ev;
}

}  // namespace fitscale
