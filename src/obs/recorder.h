#pragma once
// What the controller tells the outside world about what it did: logs, Kubernetes events (through
// ClusterView), metrics. Implementations: a logging/metrics recorder (obs/), the simulator's
// report recorder (sim/), and NullRecorder.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/time.h"

namespace fitscale {

struct Plan;
struct Snapshot;

enum class ActionKind {
  Launch,         // instances launched for pods
  LaunchFailed,   // the cloud refused (code in fields["code"])
  Refuse,         // budget/limit refusal
  Unschedulable,  // no offering fits
  Remove,         // node removed (reason: empty, never-registered, interrupted)
  Interrupted,    // spot instance taken back
  Evict,
  EvictBlocked,
  Keep,  // a node scale-down would remove stays: its evictable pods fit nowhere else
  // A job ran past its worst-case runtime (fields: namespace, job, action alert|terminate,
  // pods): once per job and period; budget alerts post it to the webhook.
  MaxRuntimeExceeded,
  Ungate,  // a pod's budget gate (fitscale.io/budget) removed: its job fits its budgets
  // The fitscale.io/reclaim taint put on a node (fields["taint"] "added") or taken off
  // ("removed"): its launch job ended and its room is too dear for the pending work
  // (planner/reclaim.h).
  Reclaim,
};
const char* to_string(ActionKind k);

struct ActionRecord {
  ActionKind kind = ActionKind::Launch;
  std::string subject;  // "ns/pod", node name, instance id, job
  std::string reason;   // one line a person reads
  std::map<std::string, std::string>
      fields;  // machine-readable extras (instance_type, count, usd_per_hour, code, ...)
};

// One reconcile loop, timed on the Clock's monotonic reading. A skipped loop only observed; the
// record phase is the recorders' planned() calls (metrics, budget alerts, the simulator's
// report), so loop_finished() sees every phase but its own.
struct LoopStats {
  Time at = 0;
  double observe_s = 0, plan_s = 0, act_s = 0, record_s = 0;
  double total_s = 0;    // the whole loop, phases and what lies between them
  bool skipped = false;  // nothing changed: no plan was made
  // What a planned loop did: pods it had to place (on free, in-flight or new capacity, or not at
  // all), instances launched, Events handed to the cluster view (queued there, not yet sent).
  int pods_pending = 0;
  int launched = 0;
  int events = 0;
};

class Recorder {
 public:
  virtual ~Recorder() = default;
  virtual void action(const ActionRecord& record) = 0;
  // After every loop that planned: the view it planned on and the plan.
  virtual void planned(const Snapshot& snapshot, const Plan& plan, const LoopStats& stats) = 0;
  virtual void loop_finished(const LoopStats& stats) = 0;
};

class NullRecorder final : public Recorder {
 public:
  void action(const ActionRecord&) override {}
  void planned(const Snapshot&, const Plan&, const LoopStats&) override {}
  void loop_finished(const LoopStats&) override {}
};

// Sends everything to several recorders (logs + metrics + alerts + simulator report).
class FanoutRecorder final : public Recorder {
 public:
  explicit FanoutRecorder(std::vector<Recorder*> targets) : targets_(std::move(targets)) {}
  void action(const ActionRecord& r) override {
    for (auto* t : targets_) t->action(r);
  }
  void planned(const Snapshot& s, const Plan& p, const LoopStats& st) override {
    for (auto* t : targets_) t->planned(s, p, st);
  }
  void loop_finished(const LoopStats& st) override {
    for (auto* t : targets_) t->loop_finished(st);
  }

 private:
  std::vector<Recorder*> targets_;
};

}  // namespace fitscale
