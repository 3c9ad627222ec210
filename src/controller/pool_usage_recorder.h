#pragma once
// Keeps what each pool's nodes add up to, from every planned loop's snapshot (running and
// in-flight nodes fitscale launched): what the leader writes into the Pool objects' status.
// A loop that did not plan changed nothing, so the last planned loop's figures still hold.
#include <map>
#include <string>

#include "model/catalog.h"
#include "model/pool_manifest.h"
#include "obs/recorder.h"
#include "planner/plan.h"
#include "planner/pool_limits.h"

namespace fitscale {

class PoolUsageRecorder final : public Recorder {
 public:
  // `catalog` must outlive the recorder (it may be replaced in place when the pools change).
  explicit PoolUsageRecorder(const Catalog& catalog) : catalog_(catalog) {}

  void action(const ActionRecord&) override {}
  void planned(const Snapshot& snapshot, const Plan&, const LoopStats&) override {
    usage_.clear();
    for (const auto& [pool, c] : planner::usage_by_pool(snapshot.nodes, catalog_)) {
      usage_[pool] = PoolStatus{c.nodes, c.gpus, c.cpu_milli, c.memory_bytes, c.micros_per_hour};
    }
  }
  void loop_finished(const LoopStats&) override {}

  const std::map<std::string, PoolStatus>& usage() const { return usage_; }

 private:
  const Catalog& catalog_;
  std::map<std::string, PoolStatus> usage_;
};

}  // namespace fitscale
