#pragma once
// The virtual API server's storage: objects kept as JSON, the way the API server keeps them,
// under one global resourceVersion counter, with a bounded history of changes for watches.
// Thread-safe: HTTP handlers, watches and the cluster's controllers all use one store.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "controller/interfaces.h"

namespace fitscale::vcluster {

struct WatchEvent {
  std::uint64_t resource_version = 0;
  std::string resource;  // plural
  std::string type;      // ADDED, MODIFIED, DELETED
  nlohmann::json object;
  nlohmann::json previous;  // the object before a MODIFIED (null otherwise): selector transitions
};

struct ListResult {
  std::vector<nlohmann::json> items;  // ordered by namespace, then name
  std::uint64_t resource_version = 0;
};

// A stored object as the store holds it: immutable, shared by every reader of one version (a
// write stores a new object instead of changing this one).
using StoredObject = std::shared_ptr<const nlohmann::json>;

// The objects themselves, without copying them: what readers that only look (the scheduler, the
// kubelets, selectors, the garbage collector, paged lists) use, so that listing 50,000 pods
// copies 50,000 pointers under the lock instead of 50,000 JSON trees.
struct SharedList {
  std::vector<StoredObject> items;  // ordered by namespace, then name
  std::uint64_t resource_version = 0;
};

class ObjectStore {
 public:
  // `history_limit` bounds the change history: a watch from a resourceVersion older than what
  // the history still holds gets 410 Expired, and the client must list again.
  ObjectStore(const Clock& clock, std::size_t history_limit);

  // Sets uid, resourceVersion, creationTimestamp, namespace and a name from generateName.
  // Throws ApiError AlreadyExists.
  nlohmann::json create(const std::string& resource, const std::string& ns, nlohmann::json obj);
  std::optional<nlohmann::json> find(const std::string& resource, const std::string& ns,
                                     const std::string& name) const;
  nlohmann::json get(const std::string& resource, const std::string& ns,
                     const std::string& name) const;  // throws NotFound
  ListResult list(const std::string& resource, const std::string& ns = "") const;  // "" = all
  SharedList list_shared(const std::string& resource, const std::string& ns = "") const;
  // PUT semantics: a resourceVersion in `obj` that is not the stored one is a Conflict.
  nlohmann::json replace(const std::string& resource, const std::string& ns,
                         const std::string& name, nlohmann::json obj);
  // Read-modify-write under the lock. Unchanged objects get no new version and no event.
  nlohmann::json mutate(const std::string& resource, const std::string& ns, const std::string& name,
                        const std::function<void(nlohmann::json&)>& fn);
  nlohmann::json remove(const std::string& resource, const std::string& ns,
                        const std::string& name);  // throws NotFound

  std::uint64_t resource_version() const;
  // Versions older than this have left the history: a watch or a list continuation from one
  // gets 410 Expired.
  std::uint64_t oldest_resource_version() const;
  // Changes to `resource` after `after_rv`; waits up to `timeout` for the first one. Throws
  // ApiError 410 Expired when `after_rv` is older than the history. Empty after close().
  // `*seen_up_to` (optional) gets the store's version at the time of the answer: every change to
  // `resource` up to it has been returned, so a watch can move its bookmark there.
  std::vector<WatchEvent> wait_for_events(const std::string& resource, std::uint64_t after_rv,
                                          std::chrono::milliseconds timeout,
                                          std::uint64_t* seen_up_to = nullptr) const;
  void close();  // wakes every watch so the server can stop
  bool closed() const;

 private:
  void record(const std::string& resource, const std::string& type, const nlohmann::json& obj,
              nlohmann::json previous);
  std::string next_uid();
  static std::string key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

  const Clock& clock_;
  std::size_t history_limit_;
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  bool closed_ = false;
  std::uint64_t rv_ = 1;
  std::uint64_t uid_counter_ = 0;
  std::uint64_t compacted_rv_ = 0;  // newest version dropped from the history
  std::map<std::string, std::map<std::string, StoredObject>> objects_;  // resource -> ns/name
  std::deque<WatchEvent> history_;
};

}  // namespace fitscale::vcluster
