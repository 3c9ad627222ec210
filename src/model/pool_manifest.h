#pragma once
// One Pool object (pools.fitscale.io/v1alpha1, deploy/crds/pools.fitscale.io.yaml): a document of
// a manifest, or an object the API server returned as JSON (which is YAML too). Its spec is read
// by the same reader as one entry of the config file's `pools:` list (pool_config.h), so the two
// can never disagree; its name is metadata.name.
#include <cstdint>
#include <string>

#include "model/money.h"
#include "model/pool.h"

namespace YAML {
class Node;
}

namespace fitscale {

struct PoolObject {
  std::string name;
  std::string uid;
  std::string resource_version;
  Pool pool;
};

// What the leader writes into a Pool's status (what `kubectl get pools` shows): the pool's
// nodes fitscale launched (running and in flight), their GPUs, capacity and price per hour.
struct PoolStatus {
  std::int64_t nodes = 0;
  std::int64_t gpus = 0;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  Micros micros_per_hour = 0;
  bool operator==(const PoolStatus&) const = default;
};

// Throws InputError naming `source` and the line (a file), or "Pool NAME" when `source` is
// empty (an object from the API), and the field ("spec.limits.gpus: ...").
PoolObject read_pool_manifest(const YAML::Node& doc, const std::string& source);

// Is this document a Pool (apiVersion fitscale.io/..., kind Pool)?
bool is_pool_manifest(const YAML::Node& doc);

}  // namespace fitscale
