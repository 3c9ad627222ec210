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
  return nlohmann::json{{"type", type}, {"object", obj}}.dump() + "\n";
}

std::string line(const WatchRequest& w, const std::string& type, const nlohmann::json& obj) {
  return line(type, w.present ? w.present(obj) : obj);
}

}  // namespace

void stream_watch(const ObjectStore& store, const WatchRequest& w,
                  const std::function<bool(const std::string&)>& write) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + w.timeout;
  std::uint64_t rv = 0;
  if (w.resource_version.empty() || w.resource_version == "0") {
    auto listed = store.list(w.resource->store_key(), w.ns);
    for (const auto& obj : listed.items) {
      if (selected(w, obj) && !write(line(w, "ADDED", obj))) return;
    }
    rv = listed.resource_version;
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
    if (w.bookmarks && Clock::now() - last_sent >= w.bookmark_interval) {
      nlohmann::json bm = {{"kind", w.resource->kind},
                           {"apiVersion", w.resource->group_version()},
                           {"metadata", {{"resourceVersion", std::to_string(rv)}}}};
      if (!write(line("BOOKMARK", bm))) return;
      last_sent = Clock::now();
    }
  }
}

}  // namespace fitscale::vcluster
