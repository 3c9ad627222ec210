#pragma once
// The reconcile loop: observe -> plan -> act -> record, the same code in all three worlds.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "controller/interfaces.h"
#include "controller/loop_work.h"
#include "cost/ledger.h"
#include "model/catalog.h"
#include "obs/recorder.h"
#include "planner/plan.h"

namespace fitscale {

class KeptSnapshot;
class LaunchTracker;
class RuntimeWatch;

struct ControllerOptions {
  Policy policy;
  Seconds offering_backoff_s =
      300;               // an offering that failed with a capacity error is skipped this long
  bool dry_run = false;  // log every action, take none
  std::string cluster_name = "fitscale";
  // The world changes only between reconciles (the simulator): what the controller did itself
  // was already counted in its plan, so it need not look again just because of its own actions.
  bool synchronous_world = false;
  // Pods left waiting on an hourly cap are re-planned at least this often (spend moves on).
  Seconds waiting_recheck_s = 300;
  // Ask the ledger for spend only when a pod is unbound, i.e. when budget admission may read it.
  // Only for a world whose recorders do not read Snapshot::spend (the simulator's do not; the
  // metrics recorder does): the ledger's spend() is O(open nodes) on every planned loop.
  bool spend_only_for_admission = false;
  // Called between a loop's phases and between its launches and removals: true asks the loop
  // to stop there (a SIGTERM must be honoured within a second, issue 20); what it did so far is
  // kept and the next loop plans again. Each call also says the loop is still making progress
  // (readiness). Empty: never stop.
  std::function<bool()> checkpoint;
};

struct LoopResult {
  bool planned = false;  // false: nothing changed and no timer was due, the loop cost ~nothing
  bool acted = false;    // false in dry-run or when the view was not trusted
  bool stopped = false;  // cut short by options.checkpoint
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
  // Budget objects change while fitscale runs: the next loop plans with these.
  void set_budgets(Budgets budgets);
  // Launch objects: each launch and how it went are handed to `log` (null: none are kept).
  void set_launch_log(LaunchLog* log);

 private:
  struct State;
  // `kept`: only its touched nodes can have other pods than last time; null: look at all nodes.
  void meter_pods(const Snapshot& snapshot, Time now, const KeptSnapshot* kept);
  void launch(const Plan& p, const Snapshot& snapshot, Time now, LoopResult& result);
  void remove(const Plan& p, const Snapshot& snapshot, Time now, LoopResult& result);
  // The second step of empty nodes cordoned on an earlier loop: deleted if still empty, else
  // uncordoned (planner/drain_check.h).
  void finish_empty_removals(const Snapshot& snapshot, Time now, LoopResult& result);
  // A node's deletion done: its instance terminated, metering stopped, its timers forgotten.
  void finish_removal(const RemoveDecision& d, Time now, LoopResult& result);
  void give_back(const std::string& node);
  void report_kept(const Plan& p);
  void report_unschedulable(const Plan& p, LoopResult& result);
  void report_bad_pods(const std::vector<BadObject>& bad);
  // Pods the plan places on in-flight nodes: a Nominated event naming the node, once per node.
  void report_nominated(const Plan& p, const Snapshot& snapshot);
  // Jobs past their worst-case runtime: alert, or delete their pods (maxRuntimeAction; in
  // overruns.cpp). False: a deletion failed, look again next loop.
  bool act_on_overruns(const Snapshot& snapshot, Time now);
  // Every event goes through here (counted for the loop's log line).
  void record_event(const ObjectRef& about, const std::string& type, const std::string& reason,
                    const std::string& message);
  Time next_timer(const Snapshot& snapshot, const Policy& policy, Time now) const;
  // The steps of reconcile(), in order.
  struct LoopStart;
  LoopWork work_to_do(Time now, LoopStart& start);
  // The ledger against the instance listing: what vanished stops costing, what is new (adopted
  // after a restart) costs from its launch.
  void meter_instances(const std::vector<Instance>& instances, Time now);
  // Nodes being drained that are gone are no longer draining.
  void forget_gone_draining(bool lent, const ClusterState& view);
  // The configured policy with this loop's offerings in back-off.
  Policy policy_now(Time now);
  // options_.checkpoint() at one of the loop's checkpoints: true (and result.stopped) when the
  // loop must stop there, or already did; the next loop then plans again.
  bool stopped_at_checkpoint(LoopResult& result);
  ClusterView& cluster_;
  CloudProvider& cloud_;
  const Catalog& catalog_;
  const Clock& clock_;
  Ledger* ledger_;
  Recorder& recorder_;
  ControllerOptions options_;
  std::unique_ptr<State> state_;
  std::unique_ptr<RuntimeWatch> runtime_watch_;
  std::unique_ptr<LaunchTracker> launches_;
};

}  // namespace fitscale
