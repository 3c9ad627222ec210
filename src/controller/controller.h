#pragma once
// The reconcile loop: observe -> plan -> act -> record, the same code in all three worlds.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "controller/interfaces.h"
#include "cost/ledger.h"
#include "model/catalog.h"
#include "obs/recorder.h"
#include "planner/plan.h"

namespace fitscale {

struct ControllerOptions {
  Policy policy;
  Seconds offering_backoff_s = 300;  // an offering that failed with a capacity error is skipped this long
  bool dry_run = false;              // log every action, take none
  std::string cluster_name = "fitscale";
};

struct LoopResult {
  bool planned = false;  // false: nothing changed and no timer was due, the loop cost ~nothing
  bool acted = false;    // false in dry-run or when the view was not trusted
  int launched = 0;      // instances
  int removed = 0;       // nodes
  int refused = 0;       // pods refused by budgets this loop
};

class Controller {
 public:
  // `ledger` may be null (no metering, budgets see zero spend).
  Controller(ClusterView& cluster, CloudProvider& cloud, const Catalog& catalog, const Clock& clock,
             Ledger* ledger, Recorder& recorder, ControllerOptions options);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  LoopResult reconcile();

 private:
  struct State;
  ClusterView& cluster_;
  CloudProvider& cloud_;
  const Catalog& catalog_;
  const Clock& clock_;
  Ledger* ledger_;
  Recorder& recorder_;
  ControllerOptions options_;
  std::unique_ptr<State> state_;
};

}  // namespace fitscale
