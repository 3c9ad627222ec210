#pragma once
// Pool objects (pools.fitscale.io) of a live cluster, as the run sees them: read by an informer,
// their status written by the leader. The Kubernetes implementation is kube/kube_pool_store.h.
#include <cstdint>
#include <string>
#include <vector>

#include "controller/interfaces.h"
#include "model/pool_manifest.h"

namespace fitscale {

class PoolStore {
 public:
  virtual ~PoolStore() = default;
  // False until the objects were read once (or the CRD is known not to be installed).
  virtual bool synced() const = 0;
  // Changes whenever objects() or bad_objects() would.
  virtual std::uint64_t generation() const = 0;
  virtual std::vector<PoolObject> objects() const = 0;
  // Pools that could not be read (named, with the error); the others still apply.
  virtual std::vector<BadObject> bad_objects() const = 0;
  // Replaces the object's status (the status subresource). Returns "" or the error.
  virtual std::string write_status(const PoolObject& of, const PoolStatus& status) = 0;
};

}  // namespace fitscale
