#include "controller/pool_sync.h"

#include <algorithm>

namespace fitscale {

PoolSync::PoolSync(PoolStore& store, std::vector<Pool> file_pools)
    : store_(store), file_pools_(std::move(file_pools)) {}

void PoolSync::problem(const PoolProblem& p) {
  if (!reported_.emplace(p.name, p.error).second) return;
  if (on_problem_) on_problem_(p);
}

void PoolSync::refresh() {
  const std::uint64_t g = store_.generation();
  if (have_generation_ && g == generation_) return;
  have_generation_ = true;
  generation_ = g;
  objects_ = store_.objects();
  const std::vector<BadObject> bad = store_.bad_objects();

  std::map<std::string, Pool> by_name;
  for (const PoolObject& o : objects_) {
    by_name[o.name] = o.pool;
    last_good_[o.name] = o.pool;
  }
  for (const BadObject& b : bad) {
    PoolProblem p{b.key, b.uid, b.resource_version, b.error, ""};
    if (const auto kept = last_good_.find(b.key); kept != last_good_.end()) {
      by_name[b.key] = kept->second;
      p.consequence = "its last valid spec still applies until it is fixed";
    } else {
      p.consequence =
          "the pool is not used: no node is launched for it; its running nodes keep running and "
          "are removed when empty";
    }
    problem(p);
  }
  // An object deleted for good is forgotten; one that is bad stays remembered.
  std::erase_if(last_good_, [&](const auto& kv) {
    return std::none_of(objects_.begin(), objects_.end(),
                        [&](const PoolObject& o) { return o.name == kv.first; }) &&
           std::none_of(bad.begin(), bad.end(),
                        [&](const BadObject& b) { return b.key == kv.first; });
  });

  std::vector<Pool> pools;
  pools.reserve(by_name.size());
  for (auto& [name, pool] : by_name) pools.push_back(std::move(pool));
  std::string source = "Pool objects";
  if (pools.empty()) {
    pools = file_pools_;
    source = "the config file";
    if (!bad.empty()) {
      problem({"", "", "", "no Pool object can be used",
               "the config file's pools apply until one can"});
    }
  }
  changed_ = changed_ || pools != pools_;
  pools_ = std::move(pools);
  source_ = std::move(source);
}

const std::vector<Pool>& PoolSync::pools(bool& changed) {
  refresh();
  changed = changed_;
  changed_ = false;
  return pools_;
}

void PoolSync::write_statuses(const std::map<std::string, PoolStatus>& usage) {
  refresh();
  for (const PoolObject& o : objects_) {
    const auto it = usage.find(o.name);
    const PoolStatus s = it == usage.end() ? PoolStatus{} : it->second;
    const auto last = written_.find(o.uid);
    if (last != written_.end() && last->second == s) continue;
    const std::string error = store_.write_status(o, s);
    if (!error.empty()) {
      problem({o.name, o.uid, o.resource_version, "status not written: " + error,
               "retried after the next loop"});
      continue;
    }
    written_[o.uid] = s;
  }
}

}  // namespace fitscale
