#pragma once
// What `fitscale run` does with Pool objects (docs/pools.md, "Pool objects"), kept out of
// run_command.cpp: the store that watches them, which pools apply (PoolSync's rule), the
// catalog's offerings made again when they change, the Warning Event and log line for an
// object that cannot be used, and the status the leader writes after every loop.
#include <string>
#include <vector>

#include "controller/interfaces.h"
#include "controller/pool_sync.h"
#include "controller/pool_usage_recorder.h"
#include "kube/kube_pool_store.h"
#include "kube/kubeconfig.h"
#include "model/catalog.h"
#include "model/config.h"
#include "obs/logger.h"

namespace fitscale::cli {

class RunPools {
 public:
  // `events` records the Warning Events on bad objects (only the leader's are written);
  // `catalog` is the run's, whose pools update() replaces.
  RunPools(const KubeConfig& kube, const obs::Logger& log, const Config& config,
           ClusterView& events, const Catalog& catalog);
  ~RunPools();

  void start() { store_.start(); }
  void stop() { store_.stop(); }
  bool ready() const { return sync_.ready(); }

  // The pools that apply without Pool objects: the file's, or the default pool when it has none.
  static std::vector<Pool> file_pools(const Config& config);
  // The catalog of every offering through no pool: what each pool's offerings are made from.
  static CatalogOptions open_options(CatalogOptions options);
  // When the pools that apply changed since the last call (and on the first): `catalog` is
  // made again from `all` for them; true then (the caller starts a new controller on it).
  bool update(const Catalog& all, Catalog& catalog);

  // Counts each pool's nodes on every planned loop; add it to the controller's recorders.
  Recorder& usage_recorder() { return usage_; }
  // After every loop the leader ran: the Pool objects' status.
  void after_loop() { sync_.write_statuses(usage_.usage()); }

 private:
  const obs::Logger& log_;
  KubePoolStore store_;
  PoolSync sync_;
  PoolUsageRecorder usage_;
};

}  // namespace fitscale::cli
