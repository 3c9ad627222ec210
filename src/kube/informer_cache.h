#pragma once
// The informer's store: the latest decoded version of every object of one kind, the objects
// that could not be decoded (skipped, reported), and a generation that changes with every change
// so a reconcile loop with nothing new can skip its work.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "controller/interfaces.h"

namespace fitscale {

template <class T>
class InformerCache {
 public:
  void replace(std::vector<std::pair<std::string, T>> items, std::vector<BadObject> bad) {
    std::lock_guard lock(mu_);
    items_.clear();
    for (auto& [k, v] : items) items_.insert_or_assign(std::move(k), std::move(v));
    bad_.clear();
    for (auto& b : bad) {
      std::string key = b.key;
      bad_.insert_or_assign(std::move(key), std::move(b));
    }
    synced_ = true;
    healthy_ = true;
    ++generation_;
  }
  void upsert(const std::string& key, T value) {
    std::lock_guard lock(mu_);
    items_.insert_or_assign(key, std::move(value));
    bad_.erase(key);
    ++generation_;
  }
  // A version that does not decode replaces the good one: acting on a stale copy is worse.
  void mark_bad(BadObject bad) {
    std::lock_guard lock(mu_);
    items_.erase(bad.key);
    std::string key = bad.key;
    bad_.insert_or_assign(std::move(key), std::move(bad));
    ++generation_;
  }
  void remove(const std::string& key) {
    std::lock_guard lock(mu_);
    items_.erase(key);
    bad_.erase(key);
    ++generation_;
  }
  void set_healthy(bool healthy) {
    std::lock_guard lock(mu_);
    if (healthy_ != healthy) ++generation_;
    healthy_ = healthy;
  }

  std::vector<T> items() const {
    std::lock_guard lock(mu_);
    std::vector<T> out;
    out.reserve(items_.size());
    for (const auto& [k, v] : items_) out.push_back(v);
    return out;
  }
  std::vector<BadObject> bad() const {
    std::lock_guard lock(mu_);
    std::vector<BadObject> out;
    out.reserve(bad_.size());
    for (const auto& [k, b] : bad_) out.push_back(b);
    return out;
  }
  // Calls `f` with the object under `key`, or nullptr, under the cache's lock (no copy).
  template <class F>
  void visit(const std::string& key, F&& f) const {
    std::lock_guard lock(mu_);
    auto it = items_.find(key);
    f(it == items_.end() ? static_cast<const T*>(nullptr) : &it->second);
  }
  std::uint64_t generation() const {
    std::lock_guard lock(mu_);
    return generation_;
  }
  // Listed at least once.
  bool synced() const {
    std::lock_guard lock(mu_);
    return synced_;
  }
  // Listed, and the last list or watch did not fail: the cache follows the server.
  bool current() const {
    std::lock_guard lock(mu_);
    return synced_ && healthy_;
  }
  std::size_t size() const {
    std::lock_guard lock(mu_);
    return items_.size();
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, T> items_;  // ordered: observe() is deterministic
  std::map<std::string, BadObject> bad_;
  std::uint64_t generation_ = 0;
  bool synced_ = false;
  bool healthy_ = false;
};

}  // namespace fitscale
