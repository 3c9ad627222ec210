#pragma once
// List + watch for one resource kind, on its own thread (the client-go informer protocol):
// list page by page (limit/continue), then watch from the list's resourceVersion with bookmarks;
// ADDED/MODIFIED/DELETED update the cache, BOOKMARK advances the resourceVersion. A 410 Gone
// (HTTP status or ERROR event) relists; a closed stream re-watches; a failure backs off
// exponentially and relists. An object that does not decode is skipped and reported, never fatal.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "kube/api_client.h"
#include "kube/informer_cache.h"
#include "kube/watch_event.h"
#include "model/error.h"
#include "obs/logger.h"

namespace fitscale {

template <class T>
struct ResourceCodec {
  std::string resource;  // "pods", for logs
  std::string path;      // "/api/v1/pods"
  // Decodes the items of one list page (the whole response body, parsed once). A bad item is
  // appended to `bad` as (key, error) and skipped.
  std::function<void(std::string_view page, std::vector<std::pair<std::string, T>>& items,
                     std::vector<std::pair<std::string, std::string>>& bad)>
      decode_list;
  // Decodes one object from a watch event. Throws InputError.
  std::function<T(std::string_view object_json)> decode_object;
};

struct InformerOptions {
  int page_limit = 500;
  long watch_timeout_s = 300;  // the server closes the watch after this; we re-watch
  std::chrono::milliseconds backoff_initial{200};
  std::chrono::milliseconds backoff_max{30000};
  ApiClientOptions client;
};

// Counters a test or a metric can read.
struct InformerStats {
  std::atomic<int> lists{0};
  std::atomic<int> watches{0};
  std::atomic<int> relists_gone{0};  // 410 Gone
  std::atomic<int> failures{0};
  std::atomic<int> events{0};
};

template <class T>
class Informer {
 public:
  // `log` must outlive the informer (its thread writes to it).
  Informer(KubeConfig config, ResourceCodec<T> codec, const obs::Logger& log,
           const InformerOptions& options = {})
      : client_(std::move(config), options.client),
        codec_(std::move(codec)),
        options_(options),
        log_(log) {}
  ~Informer() { stop(); }
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  void start() {
    if (thread_.joinable()) return;
    thread_ = std::thread([this] { run(); });
  }
  // Asks the thread to stop without waiting (several informers stop in parallel).
  void request_stop() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
  }
  void stop() {
    request_stop();
    if (thread_.joinable()) thread_.join();
  }

  const InformerCache<T>& cache() const { return cache_; }
  const InformerStats& stats() const { return stats_; }

 private:
  enum class WatchResult { Rewatch, Relist, Failed, Stopped };

  void run() {
    auto backoff = options_.backoff_initial;
    bool need_list = true;
    while (!stop_) {
      if (need_list) {
        if (!list()) {
          cache_.set_healthy(false);
          wait(backoff);
          backoff = std::min(backoff * 2, options_.backoff_max);
          continue;
        }
        need_list = false;
        backoff = options_.backoff_initial;
      }
      int before = stats_.events.load();
      WatchResult r = watch();
      if (r == WatchResult::Stopped) return;
      if (r == WatchResult::Relist) {
        ++stats_.relists_gone;
        log_.info("watch: resourceVersion is gone (410), relisting",
                  {{"resource", codec_.resource}, {"resource_version", resource_version_}});
        need_list = true;
        continue;
      }
      if (r == WatchResult::Failed) {
        ++stats_.failures;
        cache_.set_healthy(false);
        wait(backoff);
        backoff = std::min(backoff * 2, options_.backoff_max);
        need_list = true;  // we may have missed events while disconnected
        continue;
      }
      // Closed by the server: re-watch from where we are. A server that closes at once without
      // a single event gets a pause, so a misbehaving server does not make us spin.
      if (stats_.events.load() == before) {
        wait(backoff);
        backoff = std::min(backoff * 2, options_.backoff_max);
      } else {
        backoff = options_.backoff_initial;
      }
    }
  }

  void wait(std::chrono::milliseconds d) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, d, [this] { return stop_.load(); });
  }

  bool list() {
    ++stats_.lists;
    std::vector<std::pair<std::string, T>> items;
    std::vector<std::pair<std::string, std::string>> bad;
    std::map<std::string, ObjectMeta> metas;  // of the pages that had a bad item
    std::string cont;
    std::string rv;
    do {
      std::string path = codec_.path + "?limit=" + std::to_string(options_.page_limit);
      if (!cont.empty()) path += "&continue=" + url_encode(cont);
      HttpResponse r = client_.get(path);
      if (stop_) return false;
      if (!r.ok()) {
        ++stats_.failures;
        log_.warn("list failed",
                  {{"resource", codec_.resource},
                   {"error", r.error.empty() ? "HTTP " + std::to_string(r.status) : r.error}});
        return false;
      }
      try {
        ListMeta meta = parse_list_meta(r.body);
        const std::size_t bad_before = bad.size();
        codec_.decode_list(r.body, items, bad);
        // Only a page with a bad item is read again, for the uid and resourceVersion its
        // report names (reported once per version, see BadObject).
        if (bad.size() != bad_before) {
          for (auto& m : parse_list_item_metas(r.body)) {
            std::string key = m.key();
            metas.insert_or_assign(std::move(key), std::move(m));
          }
        }
        cont = meta.continue_token;
        rv = meta.resource_version;
      } catch (const InputError& e) {
        ++stats_.failures;
        log_.warn("list failed", {{"resource", codec_.resource}, {"error", e.what()}});
        return false;
      }
    } while (!cont.empty() && !stop_);
    if (stop_) return false;
    for (const auto& [key, error] : bad) {
      log_.warn("skipped, cannot decode",
                {{"resource", codec_.resource}, {"object", key}, {"error", error}});
    }
    resource_version_ = rv;
    cache_.replace(std::move(items), identify(bad, metas));
    return true;
  }

  WatchResult watch() {
    ++stats_.watches;
    std::string path = codec_.path + "?watch=1&allowWatchBookmarks=true&resourceVersion=" +
                       url_encode(resource_version_) +
                       "&timeoutSeconds=" + std::to_string(options_.watch_timeout_s);
    bool gone = false;
    auto on_line = [&](std::string_view line) {
      WatchEvent ev;
      try {
        ev = parse_watch_event(line);
      } catch (const InputError& e) {
        log_.warn("watch: unreadable event, reconnecting",
                  {{"resource", codec_.resource}, {"error", e.what()}});
        return false;
      }
      ++stats_.events;
      switch (ev.type) {
        case WatchEventType::Error:
          if (ev.error_code == 410)
            gone = true;
          else
            log_.warn("watch error", {{"resource", codec_.resource},
                                      {"code", std::to_string(ev.error_code)},
                                      {"error", ev.error_message}});
          return false;
        case WatchEventType::Bookmark:
          break;
        case WatchEventType::Deleted:
          cache_.remove(ev.meta.key());
          break;
        case WatchEventType::Added:
        case WatchEventType::Modified:
          try {
            cache_.upsert(ev.meta.key(), codec_.decode_object(ev.object_json));
          } catch (const InputError& e) {
            log_.warn(
                "skipped, cannot decode",
                {{"resource", codec_.resource}, {"object", ev.meta.key()}, {"error", e.what()}});
            cache_.mark_bad(
                BadObject{ev.meta.key(), e.what(), ev.meta.uid, ev.meta.resource_version});
          }
          break;
      }
      if (!ev.meta.resource_version.empty()) resource_version_ = ev.meta.resource_version;
      cache_.set_healthy(true);
      return true;
    };
    HttpResponse failure;
    StreamEnd end = client_.stream(path, on_line, stop_, &failure);
    switch (end) {
      case StreamEnd::Stopped:
        return WatchResult::Stopped;
      case StreamEnd::Closed:
        return WatchResult::Rewatch;
      case StreamEnd::Aborted:
        return gone ? WatchResult::Relist : WatchResult::Failed;
      case StreamEnd::Failed:
        if (failure.status == 410) return WatchResult::Relist;
        log_.warn("watch failed, backing off",
                  {{"resource", codec_.resource},
                   {"error", failure.error.empty() ? "HTTP " + std::to_string(failure.status)
                                                   : failure.error}});
        return WatchResult::Failed;
    }
    return WatchResult::Failed;
  }

  static std::vector<BadObject> identify(
      const std::vector<std::pair<std::string, std::string>>& bad,
      const std::map<std::string, ObjectMeta>& metas) {
    std::vector<BadObject> out;
    out.reserve(bad.size());
    for (const auto& [key, error] : bad) {
      BadObject b{key, error, "", ""};
      if (auto it = metas.find(key); it != metas.end()) {
        b.uid = it->second.uid;
        b.resource_version = it->second.resource_version;
      }
      out.push_back(std::move(b));
    }
    return out;
  }

  ApiClient client_;
  ResourceCodec<T> codec_;
  InformerOptions options_;
  const obs::Logger& log_;
  InformerCache<T> cache_;
  InformerStats stats_;
  std::string resource_version_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace fitscale
