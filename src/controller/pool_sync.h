#pragma once
// Which pools `fitscale run` plans with (docs/pools.md, "Pool objects"): when the cluster has any
// Pool object, the objects are the pools; else the config file's `pools:` (or the default pool).
// A Pool object that cannot be read keeps the last spec this process read from it; one never
// read is left out (its nodes run on and are removed when empty, as any node of a pool no longer
// configured), and when no object at all can be used, the file's pools apply: a typo never
// leaves a cluster with nothing to launch, and never silently replaces a working pool.
// The leader writes each object's status (nodes, GPUs, capacity, $/h) where it changed.
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "controller/pool_store.h"

namespace fitscale {

// A Pool object that is not used as it is, and what fitscale does instead.
struct PoolProblem {
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string error;        // what is wrong, naming the field
  std::string consequence;  // what happens to the pool and its nodes
};

class PoolSync {
 public:
  // `file_pools`: what applies without objects (the config's pools, or the default pool).
  PoolSync(PoolStore& store, std::vector<Pool> file_pools);

  // Told once per object and error.
  void on_problem(std::function<void(const PoolProblem&)> f) { on_problem_ = std::move(f); }

  bool ready() const { return store_.synced(); }
  // The pools that apply now, sorted by name when they are objects. Sets `changed` when they
  // differ from the last call's.
  const std::vector<Pool>& pools(bool& changed);
  // Where they come from: "Pool objects" or "the config file".
  const std::string& source() const { return source_; }

  // The status of every Pool object read, from the usage of its nodes (by pool name); written
  // where it differs from what this process last wrote. Failures are problems, retried next time.
  void write_statuses(const std::map<std::string, PoolStatus>& usage);

 private:
  void refresh();
  void problem(const PoolProblem& p);

  PoolStore& store_;
  std::vector<Pool> file_pools_;
  std::function<void(const PoolProblem&)> on_problem_;
  bool have_generation_ = false;
  std::uint64_t generation_ = 0;
  std::vector<PoolObject> objects_;
  std::map<std::string, Pool> last_good_;  // by object name: kept while the object is bad
  std::vector<Pool> pools_;
  std::string source_ = "the config file";
  bool changed_ = true;
  std::set<std::pair<std::string, std::string>> reported_;  // (object, error)
  std::map<std::string, PoolStatus> written_;               // uid -> last status written
};

}  // namespace fitscale
