#include "vcluster/watch_stream.h"

#include "vcluster/api_error.h"
#include "vcluster/object_meta.h"

namespace fitscale::vcluster {
namespace {

bool selected(const WatchRequest& w, const nlohmann::json& obj) {
  if (obj.is_null()) return false;
  if (!w.ns.empty() && namespace_of(obj) != w.ns) return false;
  if (!w.name.empty() && name_of(obj) != w.name) return false;
  return matches_labels(w.labels, obj) && matches_fields(w.fields, obj);
}

std::string line(const std::string& type, const nlohmann::json& obj) {
  return nlohmann::json{{"type", type}, {"object", obj}}.dump(
             -1, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

nlohmann::json bookmark(const WatchRequest& w, std::uint64_t rv, bool initial_events_end) {
  nlohmann::json bm = {{"kind", w.resource->kind},
                       {"apiVersion", w.resource->group_version()},
                       {"metadata", {{"resourceVersion", std::to_string(rv)}}}};
  if (initial_events_end) {
    bm["metadata"]["annotations"] = {{"k8s.io/initial-events-end", "true"}};
  }
  return bm;
}

std::string param(const std::map<std::string, std::string>& q, const std::string& key) {
  auto it = q.find(key);
  return it == q.end() ? "" : it->second;
}

// apimachinery's reading of a boolean query parameter: anything but "0" and "false" is true.
std::optional<bool> bool_param(const std::map<std::string, std::string>& q,
                               const std::string& key) {
  auto it = q.find(key);
  if (it == q.end()) return std::nullopt;
  return !(it->second == "0" || it->second == "false" || it->second == "False");
}

ApiError invalid_list_options(const std::string& field, const std::string& message) {
  ApiError e(422, "Invalid",
             "ListOptions.meta.k8s.io \"\" is invalid: " + field + ": Forbidden: " + message);
  e.with_cause("FieldValueForbidden", field, "Forbidden: " + message);
  return e;
}

std::string line(const WatchRequest& w, const std::string& type, const nlohmann::json& obj) {
  return line(type, w.present ? w.present(obj) : obj);
}

}  // namespace

void read_watch_options(const std::map<std::string, std::string>& query, WatchRequest& w) {
  w.resource_version = param(query, "resourceVersion");
  w.bookmarks = bool_param(query, "allowWatchBookmarks").value_or(false);
  w.send_initial_events = bool_param(query, "sendInitialEvents");
  const std::string match = param(query, "resourceVersionMatch");
  // As apimachinery's ValidateListOptions for a watch.
  if (w.send_initial_events) {
    if (match != "NotOlderThan") {
      throw invalid_list_options("resourceVersionMatch",
                                 "sendInitialEvents requires setting resourceVersionMatch to "
                                 "NotOlderThan");
    }
    if (!w.bookmarks) {
      throw invalid_list_options("allowWatchBookmarks",
                                 "sendInitialEvents requires setting allowWatchBookmarks to true");
    }
  } else if (!match.empty()) {
    throw invalid_list_options("resourceVersionMatch",
                               "resourceVersionMatch is forbidden for watch unless "
                               "sendInitialEvents is provided");
  }
  if (!match.empty() && match != "NotOlderThan" && match != "Exact") {
    throw invalid_list_options("resourceVersionMatch", "unsupported value \"" + match + "\"");
  }
  if (auto t = param(query, "timeoutSeconds"); !t.empty()) {
    try {
      w.timeout = std::chrono::seconds(std::stol(t));
    } catch (const std::exception&) {
      throw bad_request("invalid timeoutSeconds \"" + t + "\"");
    }
  }
}

void stream_watch(const ObjectStore& store, const WatchRequest& w,
                  const std::function<bool(const std::string&)>& write,
                  const std::function<bool()>& client_alive) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + w.timeout;
  std::uint64_t rv = 0;
  const bool legacy_initial =
      !w.send_initial_events && (w.resource_version.empty() || w.resource_version == "0");
  if (w.send_initial_events.value_or(false) || legacy_initial) {
    // NotOlderThan any given version: the current state is at least as new as it.
    auto listed = store.list_shared(w.resource->store_key(), w.ns);
    for (const auto& obj : listed.items) {
      if (selected(w, *obj) && !write(line(w, "ADDED", *obj))) return;
    }
    rv = listed.resource_version;
    if (w.send_initial_events && !write(line("BOOKMARK", bookmark(w, rv, true)))) return;
  } else if (w.resource_version.empty() || w.resource_version == "0") {
    rv = store.resource_version();  // sendInitialEvents=false: changes from now on
  } else {
    try {
      rv = std::stoull(w.resource_version);
    } catch (const std::exception&) {
      write(line("ERROR", status_json(bad_request("invalid resourceVersion \"" +
                                                  w.resource_version + "\""))));
      return;
    }
  }
  auto last_sent = Clock::now();
  for (;;) {
    const auto now = Clock::now();
    if (now >= deadline) return;
    std::vector<WatchEvent> events;
    std::uint64_t seen_up_to = rv;
    try {
      events = store.wait_for_events(
          w.resource->store_key(), rv,
          std::chrono::duration_cast<std::chrono::milliseconds>(
              std::min<Clock::duration>(deadline - now, std::chrono::seconds(1))),
          &seen_up_to);
    } catch (const ApiError& e) {
      write(line("ERROR", status_json(e)));
      return;
    }
    for (const auto& ev : events) {
      const bool now_in = selected(w, ev.object);
      std::string type = ev.type;
      if (ev.type == "MODIFIED") {
        const bool was_in = selected(w, ev.previous);
        if (!now_in && !was_in) continue;
        if (!now_in) type = "DELETED";
        if (!was_in) type = "ADDED";
      } else if (!now_in) {
        continue;
      }
      if (!write(line(w, type, ev.object))) return;
      last_sent = Clock::now();
    }
    // Every change to this resource up to seen_up_to has been sent: the stream is there now.
    rv = std::max(rv, seen_up_to);
    if (store.closed()) return;  // after sending what was stored: a closing server drains first
    if (client_alive && !client_alive()) return;  // frees the thread of a client that left
    if (w.bookmarks && Clock::now() - last_sent >= w.bookmark_interval) {
      if (!write(line("BOOKMARK", bookmark(w, rv, false)))) return;
      last_sent = Clock::now();
    }
  }
}

}  // namespace fitscale::vcluster
