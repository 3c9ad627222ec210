#pragma once
// Pool objects (pools.fitscale.io/v1alpha1) of a live cluster: an informer keeps them (list +
// watch), the leader writes their status subresource with a merge patch. A cluster without the
// CRD has no Pool objects: that is said once at start, and the config file's pools apply (the
// CRD applied later is seen after a restart).
#include <atomic>
#include <memory>
#include <string>

#include "controller/pool_store.h"
#include "kube/api_client.h"
#include "kube/informer.h"
#include "obs/logger.h"

namespace fitscale {

// Decodes Pool JSON as the API serves it (the spec through the config file's pool reader).
ResourceCodec<PoolObject> pool_codec();
// The status JSON (what `kubectl get pools` shows): nodes, gpus, cpu, memory, usdPerHour, and
// limitsUsed ("nodes 2/2, gpus 8/64") for the limits the pool has.
std::string pool_status_json(const Pool& pool, const PoolStatus& status);

class KubePoolStore final : public PoolStore {
 public:
  // `log` must outlive the store (the informer's thread writes to it).
  KubePoolStore(const KubeConfig& config, const obs::Logger& log,
                const InformerOptions& options = {});
  ~KubePoolStore() override;

  // Asks the API whether Pools are served; starts the informer when they are.
  void start();
  void stop();

  bool synced() const override;
  std::uint64_t generation() const override;
  std::vector<PoolObject> objects() const override;
  std::vector<BadObject> bad_objects() const override;
  std::string write_status(const PoolObject& of, const PoolStatus& status) override;

 private:
  const obs::Logger& log_;
  std::unique_ptr<Informer<PoolObject>> informer_;
  ApiClient writer_;  // the loop's thread only
  std::atomic<bool> started_{false};
  std::atomic<bool> installed_{false};
};

}  // namespace fitscale
