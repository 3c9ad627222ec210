#include "vcluster/object_store.h"

#include <fmt/format.h>

#include <iterator>

#include "model/time.h"
#include "vcluster/api_error.h"

namespace fitscale::vcluster {

ObjectStore::ObjectStore(const Clock& clock, std::size_t history_limit)
    : clock_(clock), history_limit_(history_limit == 0 ? 1 : history_limit) {}

std::string ObjectStore::next_uid() {
  ++uid_counter_;
  // UUID-shaped so clients that parse uids accept them; unique within one server run.
  return fmt::format("{:08x}-{:04x}-4000-8000-{:012x}", static_cast<std::uint32_t>(clock_.now()),
                     static_cast<std::uint32_t>(uid_counter_ >> 48) & 0xffff,
                     uid_counter_ & 0xffffffffffffULL);
}

void ObjectStore::record(const std::string& resource, const std::string& type,
                         const nlohmann::json& obj, nlohmann::json previous) {
  history_.push_back(WatchEvent{rv_, resource, type, obj, std::move(previous)});
  while (history_.size() > history_limit_) {
    compacted_rv_ = history_.front().resource_version;
    history_.pop_front();
  }
  changed_.notify_all();
}

nlohmann::json ObjectStore::create(const std::string& resource, const std::string& ns,
                                   nlohmann::json obj) {
  if (!obj.is_object()) throw bad_request("body must be a JSON object");
  auto& md = obj["metadata"];
  if (!md.is_object()) md = nlohmann::json::object();
  std::lock_guard lock(mu_);
  std::string name = md.value("name", std::string());
  if (name.empty()) {
    const std::string prefix = md.value("generateName", std::string());
    if (prefix.empty())
      throw ApiError(
          422, "Invalid",
          resource + ": metadata.name: Required value: name or generateName is required");
    // Deterministic suffix from the version counter: unique, short, lower-case alphanumerics.
    std::uint64_t n = (rv_ + 1) * 2654435761ULL;
    std::string suffix;
    for (int i = 0; i < 5; ++i, n /= 36) suffix += "bcdfghjklmnpqrstvwxz2456789"[n % 27];
    name = prefix + suffix;
    md["name"] = name;
  }
  auto& bucket = objects_[resource];
  if (bucket.count(key(ns, name))) throw already_exists(resource, name);
  if (!ns.empty()) md["namespace"] = ns;
  ++rv_;
  md["uid"] = next_uid();
  md["resourceVersion"] = std::to_string(rv_);
  md["creationTimestamp"] = format_rfc3339(clock_.now());
  if (!md.contains("generation")) md["generation"] = 1;
  bucket[key(ns, name)] = std::make_shared<const nlohmann::json>(obj);
  record(resource, "ADDED", obj, nullptr);
  return obj;
}

std::optional<nlohmann::json> ObjectStore::find(const std::string& resource, const std::string& ns,
                                                const std::string& name) const {
  StoredObject found;
  {
    std::lock_guard lock(mu_);
    auto b = objects_.find(resource);
    if (b == objects_.end()) return std::nullopt;
    auto it = b->second.find(key(ns, name));
    if (it == b->second.end()) return std::nullopt;
    found = it->second;
  }
  return *found;  // copied outside the lock
}

nlohmann::json ObjectStore::get(const std::string& resource, const std::string& ns,
                                const std::string& name) const {
  auto o = find(resource, ns, name);
  if (!o) throw not_found(resource, name);
  return *o;
}

SharedList ObjectStore::list_shared(const std::string& resource, const std::string& ns) const {
  std::lock_guard lock(mu_);
  SharedList out;
  out.resource_version = rv_;
  auto b = objects_.find(resource);
  if (b == objects_.end()) return out;
  if (ns.empty()) {
    out.items.reserve(b->second.size());
    for (const auto& [k, obj] : b->second) out.items.push_back(obj);
    return out;
  }
  // Keys are "namespace/name": one namespace is one contiguous range.
  const std::string prefix = ns + "/";
  for (auto it = b->second.lower_bound(prefix);
       it != b->second.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    out.items.push_back(it->second);
  }
  return out;
}

ListResult ObjectStore::list(const std::string& resource, const std::string& ns) const {
  SharedList shared = list_shared(resource, ns);
  ListResult out;
  out.resource_version = shared.resource_version;
  out.items.reserve(shared.items.size());
  for (const auto& obj : shared.items) out.items.push_back(*obj);  // copied outside the lock
  return out;
}

nlohmann::json ObjectStore::replace(const std::string& resource, const std::string& ns,
                                    const std::string& name, nlohmann::json obj) {
  if (!obj.is_object()) throw bad_request("body must be a JSON object");
  std::lock_guard lock(mu_);
  auto& bucket = objects_[resource];
  auto it = bucket.find(key(ns, name));
  if (it == bucket.end()) throw not_found(resource, name);
  auto& md = obj["metadata"];
  if (!md.is_object()) md = nlohmann::json::object();
  const auto& old_md = (*it->second)["metadata"];
  const std::string want = md.value("resourceVersion", std::string());
  if (!want.empty() && want != old_md.value("resourceVersion", std::string())) {
    throw conflict(resource, name);
  }
  if (md.value("name", name) != name) throw bad_request("metadata.name does not match the URL");
  // Server-owned metadata survives an update, as on a real API server.
  md["name"] = name;
  if (!ns.empty()) md["namespace"] = ns;
  for (const char* f : {"uid", "creationTimestamp", "deletionTimestamp"}) {
    if (old_md.contains(f)) md[f] = old_md[f];
  }
  const StoredObject previous = it->second;
  md["resourceVersion"] = (*previous)["metadata"]["resourceVersion"];
  if (obj == *previous) return *previous;
  ++rv_;
  md["resourceVersion"] = std::to_string(rv_);
  it->second = std::make_shared<const nlohmann::json>(obj);
  record(resource, "MODIFIED", obj, *previous);
  return obj;
}

nlohmann::json ObjectStore::mutate(const std::string& resource, const std::string& ns,
                                   const std::string& name,
                                   const std::function<void(nlohmann::json&)>& fn) {
  std::lock_guard lock(mu_);
  auto& bucket = objects_[resource];
  auto it = bucket.find(key(ns, name));
  if (it == bucket.end()) throw not_found(resource, name);
  nlohmann::json obj = *it->second;
  fn(obj);
  if (obj == *it->second) return obj;
  ++rv_;
  obj["metadata"]["resourceVersion"] = std::to_string(rv_);
  const StoredObject previous = it->second;
  it->second = std::make_shared<const nlohmann::json>(obj);
  record(resource, "MODIFIED", obj, *previous);
  return obj;
}

nlohmann::json ObjectStore::remove(const std::string& resource, const std::string& ns,
                                   const std::string& name) {
  std::lock_guard lock(mu_);
  auto& bucket = objects_[resource];
  auto it = bucket.find(key(ns, name));
  if (it == bucket.end()) throw not_found(resource, name);
  nlohmann::json obj = *it->second;
  bucket.erase(it);
  ++rv_;
  obj["metadata"]["resourceVersion"] = std::to_string(rv_);
  record(resource, "DELETED", obj, nullptr);
  return obj;
}

std::uint64_t ObjectStore::resource_version() const {
  std::lock_guard lock(mu_);
  return rv_;
}

std::uint64_t ObjectStore::oldest_resource_version() const {
  std::lock_guard lock(mu_);
  return compacted_rv_;
}

std::vector<WatchEvent> ObjectStore::wait_for_events(const std::string& resource,
                                                     std::uint64_t after_rv,
                                                     std::chrono::milliseconds timeout,
                                                     std::uint64_t* seen_up_to) const {
  std::unique_lock lock(mu_);
  if (after_rv < compacted_rv_) {
    throw expired(fmt::format("too old resource version: {} ({})", after_rv, compacted_rv_ + 1));
  }
  std::vector<WatchEvent> out;
  auto collect = [&] {
    // History is ordered by version: scan back to the first event newer than after_rv.
    auto it = history_.end();
    while (it != history_.begin() && std::prev(it)->resource_version > after_rv) --it;
    for (; it != history_.end(); ++it) {
      if (it->resource == resource) out.push_back(*it);
    }
    return !out.empty();
  };
  if (!collect() && !closed_) {
    changed_.wait_for(lock, timeout, [&] { return closed_ || collect(); });
    if (after_rv < compacted_rv_) {
      throw expired(fmt::format("too old resource version: {} ({})", after_rv, compacted_rv_ + 1));
    }
  }
  if (seen_up_to) *seen_up_to = rv_;
  return out;
}

void ObjectStore::close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  changed_.notify_all();
}

bool ObjectStore::closed() const {
  std::lock_guard lock(mu_);
  return closed_;
}

}  // namespace fitscale::vcluster
