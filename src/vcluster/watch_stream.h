#pragma once
// ?watch=true: a stream of {"type": ADDED|MODIFIED|DELETED|BOOKMARK|ERROR, "object": ...} lines,
// one JSON document per line, as the API server sends them.
//
// Semantics follow the real server: no resourceVersion (or "0") starts with a synthetic ADDED
// for every current object; a resourceVersion older than the store's history gets one ERROR
// event carrying a 410 "Expired" Status (HTTP status stays 200, as from kube-apiserver's watch
// cache), and the client must list again. An object that stops matching the selectors is sent
// as DELETED, one that starts matching as ADDED.
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/labels.h"
#include "vcluster/object_store.h"
#include "vcluster/resource_registry.h"
#include "vcluster/selectors.h"

namespace fitscale::vcluster {

struct WatchRequest {
  const ResourceInfo* resource = nullptr;
  std::string ns;    // "" = all namespaces
  std::string name;  // non-empty for a single-object watch (fieldSelector metadata.name)
  std::vector<Requirement> labels;
  std::vector<FieldRequirement> fields;
  std::string resource_version;
  bool bookmarks = false;
  // WatchList (sendInitialEvents=true): the current objects as ADDED, then a BOOKMARK annotated
  // k8s.io/initial-events-end=true. false: only changes after resource_version (now if empty).
  std::optional<bool> send_initial_events;
  std::chrono::seconds timeout{1800};
  std::chrono::seconds bookmark_interval{5};
  // Turns a stored object into what this watch's client reads (events.k8s.io Events, the
  // version of a custom resource); empty = as stored.
  std::function<nlohmann::json(nlohmann::json)> present;
};

// The watch parameters of a query (watch, resourceVersion, resourceVersionMatch,
// sendInitialEvents, allowWatchBookmarks, timeoutSeconds) checked as kube-apiserver checks them:
// throws ApiError 422 Invalid for a combination it refuses, 400 for an unreadable value.
void read_watch_options(const std::map<std::string, std::string>& query, WatchRequest& out);

// Writes lines until the timeout, the client goes away (`write` returns false, or
// `client_alive` does, checked at least once a second) or the store closes. `write` gets one line
// with its trailing newline.
void stream_watch(const ObjectStore& store, const WatchRequest& request,
                  const std::function<bool(const std::string&)>& write,
                  const std::function<bool()>& client_alive = {});

}  // namespace fitscale::vcluster
