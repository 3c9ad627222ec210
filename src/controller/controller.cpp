#include "controller/controller.h"

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "controller/budget_gate.h"
#include "controller/kept_snapshot.h"
#include "controller/launch_allowance.h"
#include "controller/launch_node_spec.h"
#include "controller/launch_tracker.h"
#include "controller/loop_work.h"
#include "controller/own_write_echo.h"
#include "controller/reclaim_taints.h"
#include "controller/runtime_watch.h"
#include "controller/snapshot_builder.h"
#include "controller/startup_taints.h"
#include "model/error.h"
#include "model/money.h"
#include "planner/drain_check.h"
#include "planner/scale_down.h"

namespace fitscale {

namespace {

constexpr Time kNever = std::numeric_limits<Time>::max();

// One line per launch, for the pod event and the log.
std::string launch_text(const LaunchDecision& d) {
  return std::to_string(d.count) + " x " + d.instance_type + " (" + d.zone + ", " +
         to_string(d.capacity_type) + ") at " + format_usd(d.usd_per_hour) + "/h each";
}

std::pair<std::string, std::string> split_pod_key(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

ObjectRef pod_ref(const std::string& key) {
  auto [ns, name] = split_pod_key(key);
  return ObjectRef{"Pod", ns, name, "", ""};
}

ObjectRef node_ref(const std::string& name) { return ObjectRef{"Node", "", name, "", ""}; }

ActionRecord remove_record(const RemoveDecision& d, bool dry_run) {
  ActionRecord rec{ActionKind::Remove,
                   d.node,
                   d.reason,
                   {{"kind", to_string(d.kind)}, {"instance", d.instance_id}}};
  if (dry_run) rec.fields["dry_run"] = "true";
  return rec;
}

// For each id of `metered`, in order: is it in the listing? Every launch and termination
// relists, so this runs often: a listing in id order (the simulator's) is merged with the
// ordered set instead of being hashed.
std::vector<bool> mark_live(const std::set<std::string>& metered,
                            const std::vector<Instance>& instances) {
  std::vector<bool> out(metered.size(), false);
  const bool ordered =
      std::is_sorted(instances.begin(), instances.end(),
                     [](const Instance& a, const Instance& b) { return a.id < b.id; });
  std::size_t k = 0;
  if (ordered) {
    auto inst = instances.begin();
    for (const auto& id : metered) {
      while (inst != instances.end() && inst->id < id) ++inst;
      out[k++] = inst != instances.end() && inst->id == id;
    }
    return out;
  }
  std::unordered_set<std::string_view> live;
  live.reserve(instances.size());
  for (const auto& inst : instances) live.insert(inst.id);
  for (const auto& id : metered) out[k++] = live.count(id) != 0;
  return out;
}

// For clouds that cannot say whether anything changed: ids and states, in listing order.
std::string instance_fingerprint(const std::vector<Instance>& instances) {
  std::string fp;
  for (const auto& i : instances) {
    fp += i.id;
    fp += i.state;
    fp += i.interruption_notice ? '!' : ';';
  }
  return fp;
}

// A loop's statistics and the times of its phases: each phase ends where the next begins.
class LoopTimer {
 public:
  LoopTimer(const Clock& clock, Recorder& recorder, Time now)
      : clock_(clock), recorder_(recorder), started_(clock.monotonic_seconds()) {
    stats.at = now;
    phase_started_ = started_;
  }
  LoopStats stats;
  // Seconds since the last call (or the loop's start).
  double phase_done() {
    const double t = clock_.monotonic_seconds();
    const double s = t - phase_started_;
    phase_started_ = t;
    return s;
  }
  // The loop is over: its statistics go to the recorder.
  LoopResult finish(const LoopResult& result) {
    stats.total_s = clock_.monotonic_seconds() - started_;
    recorder_.loop_finished(stats);
    return result;
  }
  // Over before planning (nothing to do, or a view not to act on).
  LoopResult skipped(const LoopResult& result) {
    stats.skipped = true;
    stats.observe_s = phase_done();
    return finish(result);
  }

 private:
  const Clock& clock_;
  Recorder& recorder_;
  double started_;
  double phase_started_;
};

}  // namespace

struct Controller::LoopStart {
  std::uint64_t cluster_generation = 0;
  std::optional<std::uint64_t> cloud_generation;
  bool listed = false;                   // a cloud without a generation was listed to compare
  std::optional<ClusterState> observed;  // the cluster, observed to tell an echo (own_write_echo.h)
};

struct Controller::State {
  explicit State(const Catalog& catalog) : offerings(catalog) {}

  OfferingIndex offerings;
  bool have_observed = false;
  bool ledger_reconciled = false;  // open ledger nodes checked against the cloud once after start
  bool force_plan =
      true;  // look again next loop (after a failure, an unsynced view, a blocked eviction)
  std::uint64_t cluster_generation = 0;
  std::optional<std::uint64_t> cloud_generation;
  std::string instance_fingerprint;
  Time last_plan_at = std::numeric_limits<Time>::min();
  Time next_timer = kNever;   // earliest empty-TTL / register-timeout / backoff expiry
  bool pods_waiting = false;  // the last plan left pods waiting on a budget

  EmptySince empty_since;
  std::map<std::string, Time> backoff;                // offering key -> until
  std::set<std::string> metered;                      // instance ids started in the ledger
  std::map<std::string, std::string> pods_signature;  // instance id -> its metered pods
  std::map<std::string, std::string> last_pod_event;  // pod -> last reason reported
  // Undecodable pods already reported: key -> uid and resourceVersion of the version that failed.
  std::map<std::string, std::pair<std::string, std::string>> bad_reported;
  std::map<std::string, std::string> nominated;  // pod -> in-flight node it was told it goes to
  int events = 0;                                // handed to the cluster view this loop
  std::set<std::string> refused_jobs;            // reported once
  std::set<std::string> draining;                // nodes cordoned for removal
  std::set<std::string> cordoned;                // by fitscale, to drain: undone if blocked
  // Empty nodes cordoned on an earlier loop, deleted on a later one if still empty
  // (planner/drain_check.h): node -> the decision and when the cordon was made.
  std::map<std::string, std::pair<RemoveDecision, Time>> cordoned_empty;
  bool adopted_cordons = false;  // nodes an earlier run cordoned to remove taken over once
  std::map<std::string, std::string> kept_reason;  // node -> why scale-down keeps it (logged once)
  std::uint64_t launches = 0;                      // for client tokens

  // A cluster that lends its state: the snapshot is kept across loops, not rebuilt.
  ClusterLoan loan;
  KeptSnapshot kept;
  // The last instance listing, and the cloud generation it was taken at: a planned loop on a
  // cloud that did not change lists nothing.
  std::vector<Instance> instances;
  const std::vector<Instance>* listing = &instances;  // `instances`, or the cloud's own (lent)
  std::optional<std::uint64_t> instances_generation;
  bool meter_all = true;  // metering must look at every node, not only the touched ones
  // The view the last plan was made from, when that loop wrote reclaim taints: their echo is no
  // change (own_write_echo.h).
  OwnWriteEcho echo;
};

Controller::Controller(ClusterView& cluster, CloudProvider& cloud, const Catalog& catalog,
                       const Clock& clock, Ledger* ledger, Recorder& recorder,
                       ControllerOptions options)
    : cluster_(cluster),
      cloud_(cloud),
      catalog_(catalog),
      clock_(clock),
      ledger_(ledger),
      recorder_(recorder),
      options_(std::move(options)),
      state_(std::make_unique<State>(catalog)),
      runtime_watch_(std::make_unique<RuntimeWatch>()) {}

Controller::~Controller() = default;

void Controller::set_launch_log(LaunchLog* log) {
  launches_ = log != nullptr ? std::make_unique<LaunchTracker>(*log, cloud_.name()) : nullptr;
}

void Controller::set_budgets(Budgets budgets) {
  options_.policy.budgets = std::move(budgets);
  state_->force_plan = true;  // a raised cap may admit what waits
}

namespace {

NodeCharge charge_for(const Instance& inst, const OfferingIndex& offerings) {
  NodeCharge c;
  c.node_id = inst.id;
  c.instance_type = inst.instance_type;
  c.capacity_type = inst.capacity_type;
  c.micros_per_hour = inst.price_micros_per_hour;
  if (const Offering* o = offerings.find(inst.instance_type, inst.zone, inst.capacity_type)) {
    c.allocatable = o->allocatable;
  }
  c.owner_namespace = inst.owner_namespace;
  c.owner_job = inst.job;
  c.pool = inst.pool;
  return c;
}

// The worst-case runtime of the job a launch is for (DESIGN.md): the longest one its pods
// declare, else its namespace budget's default. nullopt: not known.
std::optional<Seconds> launch_runtime(
    const LaunchDecision& d, const std::unordered_map<std::string, const Pod*>& pods_by_key,
    const Policy& policy) {
  std::optional<Seconds> runtime;
  for (const auto& key : d.pods) {
    auto it = pods_by_key.find(key);
    if (it == pods_by_key.end()) continue;
    try {
      const auto r = it->second->declared_max_runtime();
      if (r && (!runtime || *r > *runtime)) runtime = r;
    } catch (const InputError&) {
      // The planner refuses such pods; a launch never carries one.
    }
  }
  if (!runtime) runtime = policy.budgets.for_namespace(d.owner_namespace).max_runtime;
  return runtime;
}

}  // namespace

// What this loop has to do (loop_work.h), from what changed since the last plan.
LoopWork Controller::work_to_do(Time now, LoopStart& start) {
  // --- Anything new? A quiet loop must cost next to nothing (the whole Philly trace is ~900,000
  // loops), so compare generations and timers before copying any state.
  State& st = *state_;
  start.cluster_generation = cluster_.generation();
  start.cloud_generation = cloud_.generation();
  const std::uint64_t cluster_gen = start.cluster_generation;
  const std::optional<std::uint64_t>& cloud_gen = start.cloud_generation;
  bool changed = st.force_plan || !st.have_observed;
  if (cloud_gen) {
    changed = changed || !st.cloud_generation || *cloud_gen != *st.cloud_generation;
  } else {
    st.instances = cloud_.list_instances();
    st.listing = &st.instances;
    st.instances_generation.reset();
    start.listed = true;
    std::string fp = instance_fingerprint(st.instances);
    changed = changed || fp != st.instance_fingerprint;
    st.instance_fingerprint = std::move(fp);
  }
  // Only the cluster moved, after a loop that wrote reclaim taints: perhaps by their echo alone.
  if (!changed && cluster_gen != st.cluster_generation) {
    if (st.echo.expecting()) {
      start.observed = cluster_.observe();
      if (st.echo.is_echo(*start.observed)) {
        st.cluster_generation = cluster_gen;
      } else {
        changed = true;
      }
    } else {
      changed = true;
    }
  }
  LoopWake wake;
  wake.inputs_changed = changed;
  wake.plan_timer_due = st.next_timer <= now;
  wake.budget_recheck_due = st.pods_waiting && now - st.last_plan_at >= options_.waiting_recheck_s;
  wake.budget_window_began =
      st.pods_waiting && utc_day_start(now) != utc_day_start(st.last_plan_at);
  wake.overrun_due = runtime_watch_->next_due() <= now;
  return loop_work(wake);
}

LoopResult Controller::reconcile() {
  State& st = *state_;
  LoopResult result;
  const Time now = clock_.now();
  LoopTimer loop(clock_, recorder_, now);
  LoopStats& stats = loop.stats;
  st.events = 0;
  const bool act = !options_.dry_run;

  // --- Anything new?
  LoopStart start;
  const LoopWork work = work_to_do(now, start);
  if (work == LoopWork::Nothing) return loop.skipped(result);
  const std::uint64_t cluster_gen = start.cluster_generation;
  const std::optional<std::uint64_t> cloud_gen = start.cloud_generation;
  const bool listed = start.listed;
  std::optional<ClusterState>& observed = start.observed;

  // --- Observe.
  const bool lent = cluster_.lend(st.loan);
  ClusterState view;
  if (!lent) {
    view = observed ? std::move(*observed) : cluster_.observe();
    if (!view.synced) {
      // Never act on a view we cannot trust (DESIGN.md); look again next loop.
      st.force_plan = true;
      return loop.skipped(result);
    }
  }
  report_bad_pods(view.bad_pods);
  bool relisted = listed;
  if (!listed && (!st.instances_generation || st.instances_generation != cloud_gen)) {
    st.listing = cloud_.lend_instances();
    if (st.listing == nullptr) {
      st.instances = cloud_.list_instances();
      st.listing = &st.instances;
    }
    st.instances_generation = cloud_gen;
    relisted = true;
  }
  const std::vector<Instance>& instances = *st.listing;
  st.have_observed = true;
  st.force_plan = false;
  st.cluster_generation = cluster_gen;
  st.cloud_generation = cloud_gen;

  if (ledger_ != nullptr && act && (relisted || !st.ledger_reconciled))
    meter_instances(instances, now);
  forget_gone_draining(lent, view);

  // What this plan is made from, for the echo of its reclaim taint writes (own_write_echo.h).
  ClusterState planned_view;
  const bool keep_planned_view = !lent && act && work == LoopWork::Plan;
  if (keep_planned_view) {
    planned_view.synced = true;
    planned_view.nodes = view.nodes;
    planned_view.pdbs = view.pdbs;
    planned_view.bad_pods = view.bad_pods;
  }
  if (work == LoopWork::Plan) st.echo.forget();
  Snapshot built;
  if (lent) {
    st.kept.update(st.loan, instances, relisted, st.offerings, st.draining, now);
  } else {
    built =
        build_snapshot(std::move(view), instances, st.offerings, st.draining, now, st.empty_since);
  }
  // A fresh snapshot only: the kept one (the simulator's) would keep the change across loops.
  if (!lent) set_aside_startup_taints(built, catalog_.pools, now);
  Snapshot& snapshot = lent ? st.kept.snapshot() : built;
  if (work == LoopWork::OverrunsOnly) {
    // Nothing the plan reads changed (loop_work.h): tell the jobs past their worst case and let
    // the last plan stand, without metering (no pod moved) or planning again.
    if (!act_on_overruns(snapshot, now)) st.force_plan = true;
    return loop.skipped(result);
  }
  if (ledger_ != nullptr) {
    if (act)
      meter_pods(snapshot, now,
                 lent && !st.meter_all && !st.kept.all_touched() ? &st.kept : nullptr);
    st.meter_all = false;
    const bool unbound = lent ? st.kept.unbound() > 0
                              : std::any_of(snapshot.pods.begin(), snapshot.pods.end(),
                                            [](const Pod& p) { return p.node_name.empty(); });
    if (!options_.spend_only_for_admission || unbound) {
      snapshot.spend = ledger_->spend(now);
    } else {
      snapshot.spend.clear();  // nothing pending: no admission, nobody reads it
    }
  }

  const Policy policy = policy_now(now);

  // Room whose launch job ended is closed to cheap work, or opened again for pending work
  // (planner/reclaim.h), before planning: the plan then places pods where the scheduler may
  // bind them.
  const planner::ReclaimChange reclaim = planner::decide_reclaim(snapshot, catalog_, policy, now);
  const bool reclaim_written =
      !reclaim.empty() && apply_reclaim(reclaim, snapshot, cluster_, recorder_, !act);
  if (!reclaim.empty() && !reclaim_written) st.force_plan = true;
  if (reclaim_written && keep_planned_view) written_reclaim(reclaim, planned_view.nodes);

  // --- Plan.
  stats.observe_s = loop.phase_done();
  if (stopped_at_checkpoint(result)) return loop.finish(result);
  Plan p = plan(snapshot, catalog_, policy, now);
  result.planned = true;
  st.last_plan_at = now;
  stats.plan_s = loop.phase_done();
  if (stopped_at_checkpoint(result)) return loop.finish(result);

  // --- Act (in dry run: record what we would do, do nothing).
  result.acted = act;
  if (launches_ && act) launches_->observe(snapshot.nodes, instances, now);
  launch(p, snapshot, now, result);
  remove(p, snapshot, now, result);
  if (result.stopped) {
    stats.act_s = loop.phase_done();
    stats.launched = result.launched;
    return loop.finish(result);
  }
  report_unschedulable(p, result);
  report_nominated(p, snapshot);
  if (!act_on_overruns(snapshot, now)) st.force_plan = true;
  // Pods held by the budget gate that the plan admitted start now (docs/budgets.md).
  if (!release_budget_gates(gates_to_release(snapshot, p), cluster_, recorder_, !act))
    st.force_plan = true;

  // Our own launches and removals were counted in the plan; in a world that only moves between
  // loops (the simulator) looking again because of them would find nothing new.
  if (options_.synchronous_world && !st.force_plan) {
    st.cluster_generation = cluster_.generation();
    st.cloud_generation = cloud_.generation();
  }
  st.next_timer = next_timer(snapshot, policy, now);  // the runtime watch wakes on its own
  stats.act_s = loop.phase_done();

  stats.pods_pending = static_cast<int>(p.placements.size() + p.unschedulable.size());
  for (const auto& d : p.launch) stats.pods_pending += static_cast<int>(d.pods.size());
  stats.launched = result.launched;
  stats.events = st.events;
  recorder_.planned(snapshot, p, stats);
  if (reclaim_written && keep_planned_view && !st.force_plan) {
    // The built snapshot's pods are the view's, untouched by the loop, and go with it now.
    planned_view.pods = std::move(built.pods);
    st.echo.expect(std::move(planned_view));
  }
  stats.record_s = loop.phase_done();
  return loop.finish(result);
}

void Controller::meter_instances(const std::vector<Instance>& instances, Time now) {
  State& st = *state_;
  // The ledger meters instances: those that vanished without us (spot reclaimed, terminated by
  // hand) stop costing now; those we did not know yet (after a restart) cost from their launch.
  // With the same listing as last time this would change nothing: what was metered then is
  // exactly what was live, and launches and terminations change the cloud's generation.
  if (!st.ledger_reconciled) {
    // A durable ledger may hold nodes whose instance went away while fitscale was down: stop
    // them now, or they would stay open (and cost) forever.
    st.ledger_reconciled = true;
    std::unordered_set<std::string_view> live;
    for (const auto& inst : instances) live.insert(inst.id);
    for (const auto& id : ledger_->open_nodes()) {
      if (live.count(id) == 0) ledger_->node_stopped(id, now);
    }
  }
  const std::vector<bool> is_live = mark_live(st.metered, instances);
  std::size_t k = 0;
  std::size_t live_count = 0;
  for (auto it = st.metered.begin(); it != st.metered.end(); ++k) {
    if (!is_live[k]) {
      ledger_->node_stopped(*it, now);
      st.pods_signature.erase(*it);
      it = st.metered.erase(it);
    } else {
      ++live_count;
      ++it;
    }
  }
  // Every metered id is live now; as many of them as there are instances means none is new
  // (the usual case: launches are metered when made), so the ordered set need not be searched
  // per id.
  for (const auto& inst : instances) {
    if (live_count == instances.size()) break;
    if (st.metered.insert(inst.id).second) {
      ++live_count;
      // Adopted (after a restart, or launched by another replica): the job it was for may be
      // gone, so its worst case is its namespace's default runtime from launch. Without one
      // the ledger would commit a single hour, and day/month admission would under-count.
      NodeCharge charge = charge_for(inst, st.offerings);
      if (const auto runtime =
              options_.policy.budgets.for_namespace(inst.owner_namespace).max_runtime) {
        charge.worst_case_end = inst.launched_at + *runtime;
      }
      ledger_->node_started(charge, inst.launched_at);
      st.meter_all = true;  // its node may be registered already
    }
  }
}

void Controller::forget_gone_draining(bool lent, const ClusterState& view) {
  State& st = *state_;
  if (st.draining.empty()) return;
  // Nodes we were draining and that are gone now are no longer draining.
  if (lent) {
    // The loan is ordered by name: look the few draining nodes up, not every node.
    const auto& nodes = st.loan.nodes;
    std::erase_if(st.draining, [&](const std::string& name) {
      auto it =
          std::lower_bound(nodes.begin(), nodes.end(), name,
                           [](const Node* n, const std::string& key) { return n->name < key; });
      return it == nodes.end() || (*it)->name != name;
    });
  } else {
    std::set<std::string> names;
    for (const auto& n : view.nodes) names.insert(n.name);
    std::erase_if(st.draining, [&](const std::string& n) { return names.count(n) == 0; });
  }
}

Policy Controller::policy_now(Time now) {
  State& st = *state_;
  Policy policy = options_.policy;
  for (auto it = st.backoff.begin(); it != st.backoff.end();) {
    if (it->second <= now) {
      it = st.backoff.erase(it);
    } else {
      policy.unavailable_offerings.insert(it->first);
      ++it;
    }
  }
  return policy;
}

bool Controller::stopped_at_checkpoint(LoopResult& result) {
  if (result.stopped) return true;
  if (!options_.checkpoint || !options_.checkpoint()) return false;
  state_->force_plan = true;  // what this loop did not get to, the next one plans again
  result.stopped = true;
  return true;
}

void Controller::record_event(const ObjectRef& about, const std::string& type,
                              const std::string& reason, const std::string& message) {
  ++state_->events;
  cluster_.record_event(about, type, reason, message);
}

void Controller::report_bad_pods(const std::vector<BadObject>& bad) {
  State& st = *state_;
  // Once per version: a pod that stays bad is not reported again, loop after loop; one that
  // changes and still fails is (its error may be another). Pods no longer bad are forgotten.
  std::map<std::string, std::pair<std::string, std::string>> reported;
  for (const auto& b : bad) {
    std::pair<std::string, std::string> version{b.uid, b.resource_version};
    auto it = st.bad_reported.find(b.key);
    if (it == st.bad_reported.end() || it->second != version) {
      auto [ns, name] = split_pod_key(b.key);
      record_event(ObjectRef{"Pod", ns, name, b.uid, b.resource_version}, "Warning", "FailedDecode",
                   "fitscale skips this pod: " + b.error);
    }
    reported.emplace(b.key, std::move(version));
  }
  st.bad_reported = std::move(reported);
}

void Controller::report_nominated(const Plan& p, const Snapshot& snapshot) {
  State& st = *state_;
  std::map<std::string, std::string> nominated;
  if (!p.placements.empty()) {
    std::unordered_map<std::string_view, const Node*> in_flight;
    for (const auto& n : snapshot.nodes) {
      if (n.state == NodeState::InFlight) in_flight.emplace(n.name, &n);
    }
    for (const auto& [pod, node] : p.placements) {
      auto it = in_flight.find(node);
      if (it == in_flight.end()) continue;
      auto told = st.nominated.find(pod);
      if (told == st.nominated.end() || told->second != node) {
        const Node& n = *it->second;
        record_event(pod_ref(pod), "Normal", "Nominated",
                     "Pod should schedule on: instance " + node + " (" + n.instance_type + " in " +
                         n.zone + ", launched, not yet registered)");
      }
      nominated.emplace(pod, node);
    }
  }
  st.nominated = std::move(nominated);
}

void Controller::meter_pods(const Snapshot& snapshot, Time now, const KeptSnapshot* kept) {
  State& st = *state_;
  if (kept != nullptr && kept->touched().empty()) return;
  std::unordered_map<std::string_view, std::vector<const Pod*>> by_node;
  if (kept != nullptr) {
    for (const auto& name : kept->touched()) {
      std::vector<const Pod*> pods = kept->pods_on(name);
      std::erase_if(pods, [](const Pod* p) { return !p->metered(); });
      if (!pods.empty()) by_node.emplace(name, std::move(pods));
    }
  } else {
    for (const auto& pod : snapshot.pods) {
      if (pod.node_name.empty() || !pod.metered()) continue;
      by_node[pod.node_name].push_back(&pod);
    }
  }
  // Kept: a node no pod of which moved, came or went has the signature it had (same pods, same
  // order), so only the touched ones are looked at, in the same order as all of them would be.
  std::vector<const Node*> nodes;
  if (kept != nullptr) {
    for (const auto& name : kept->touched()) {
      if (const Node* n = kept->registered(name)) nodes.push_back(n);
    }
  } else {
    for (const auto& n : snapshot.nodes) nodes.push_back(&n);
  }
  for (const Node* np : nodes) {
    const Node& node = *np;
    if (!node.managed || node.state == NodeState::InFlight ||
        st.metered.count(node.instance_id) == 0)
      continue;
    std::vector<PodUsage> usage;
    std::string signature;
    auto it = by_node.find(node.name);
    if (it != by_node.end()) {
      for (const Pod* pod : it->second) {
        usage.push_back(PodUsage{pod->key(), pod->ns, pod->job_key(), pod->requests});
        signature += pod->key();
        signature += '\n';
      }
    }
    std::string& last = st.pods_signature[node.instance_id];
    if (last == signature) continue;
    last = std::move(signature);
    ledger_->pods_changed(node.instance_id, usage, now);
  }
}

void Controller::launch(const Plan& p, const Snapshot& snapshot, Time now, LoopResult& result) {
  State& st = *state_;
  const bool act = !options_.dry_run;
  std::unordered_map<std::string, const Pod*> pods_by_key;  // for worst-case runtimes
  if (act && ledger_ != nullptr && !p.launch.empty()) {
    for (const auto& pod : snapshot.pods) {
      if (pod.node_name.empty()) pods_by_key.emplace(pod.key(), &pod);
    }
  }
  LaunchAllowance allowance(options_.policy.budgets, snapshot.spend);
  for (const auto& d : p.launch) {
    if (stopped_at_checkpoint(result)) break;
    ActionRecord rec;
    rec.kind = ActionKind::Launch;
    rec.subject = d.job;
    rec.reason = launch_text(d);
    rec.fields = {{"instance_type", d.instance_type},
                  {"zone", d.zone},
                  {"capacity_type", to_string(d.capacity_type)},
                  {"count", std::to_string(d.count)},
                  {"usd_per_hour", std::to_string(d.usd_per_hour)},
                  {"namespace", d.owner_namespace},
                  {"pods", std::to_string(d.pods.size())}};
    if (!act) {
      rec.fields["dry_run"] = "true";
      recorder_.action(rec);
      continue;
    }
    LaunchRequest req;
    req.instance_type = d.instance_type;
    req.zone = d.zone;
    req.capacity_type = d.capacity_type;
    req.count = d.count;
    req.pool = d.pool.empty() ? options_.policy.pool : d.pool;
    set_node_labels_and_taints(catalog_, d, req);
    req.provider = launch_provider(catalog_, d);
    req.owner_namespace = d.owner_namespace;
    req.job = d.job;
    req.all_or_nothing = d.all_or_nothing;
    // Deterministic and unique per decision: a retried call never launches twice.
    req.client_token =
        options_.cluster_name + "-" + std::to_string(now) + "-" + std::to_string(++st.launches);
    req.price_micros_per_hour = dollars_to_micros(d.usd_per_hour);
    if (options_.policy.enforce_budgets) {
      req.max_total_micros_per_hour = allowance.remaining(d.owner_namespace);
      allowance.charge(d.owner_namespace, req.price_micros_per_hour * d.count);
    }
    LaunchResult r = cloud_.launch(req);

    if (ledger_ != nullptr && !r.launched.empty()) {
      const std::optional<Seconds> runtime = launch_runtime(d, pods_by_key, options_.policy);
      for (const auto& inst : r.launched) {
        if (!st.metered.insert(inst.id).second) continue;
        NodeCharge charge = charge_for(inst, st.offerings);
        if (runtime) charge.worst_case_end = inst.launched_at + *runtime;
        ledger_->node_started(charge, inst.launched_at);
      }
    }
    if (!r.launched.empty()) {
      rec.fields["count"] = std::to_string(r.launched.size());
      rec.fields["instances"] = r.launched.front().id + (r.launched.size() > 1 ? ",..." : "");
      recorder_.action(rec);
      result.launched += static_cast<int>(r.launched.size());
      if (launches_) launches_->launched(d, req.pool, r.launched, now);
      for (const auto& pod : d.pods) {
        st.last_pod_event[pod] = "TriggeredScaleUp";
        record_event(pod_ref(pod), "Normal", "TriggeredScaleUp",
                     "fitscale launched " + launch_text(d));
      }
    }
    for (const auto& f : r.failures) {
      ActionRecord fail;
      fail.kind = ActionKind::LaunchFailed;
      fail.subject = d.job;
      fail.reason = f.code + ": " + f.message;
      fail.fields = {
          {"code", f.code}, {"offering", f.offering_key}, {"count", std::to_string(f.count)}};
      if (f.capacity_error) {
        // Skip this offering for a while: the next loop falls back to the next cheapest one.
        st.backoff[f.offering_key] = now + options_.offering_backoff_s;
        fail.fields["backoff_s"] = std::to_string(options_.offering_backoff_s);
      }
      recorder_.action(fail);
      st.force_plan = true;
    }
  }
}

void Controller::remove(const Plan& p, const Snapshot& snapshot, Time now, LoopResult& result) {
  State& st = *state_;
  const bool act = !options_.dry_run;
  // Usually one removal per plan: finding its node by a scan costs less than indexing them all.
  auto find_node = [&](const std::string& name) -> const Node* {
    auto it = std::find_if(snapshot.nodes.begin(), snapshot.nodes.end(),
                           [&](const Node& n) { return n.name == name; });
    return it == snapshot.nodes.end() ? nullptr : &*it;
  };
  report_kept(p);
  if (act) finish_empty_removals(snapshot, now, result);
  for (const auto& d : p.remove) {
    if (stopped_at_checkpoint(result)) break;
    if (st.cordoned_empty.count(d.node) != 0) continue;  // its second step is above
    if (!act) {
      recorder_.action(remove_record(d, true));
      continue;
    }
    const Node* node = find_node(d.node);
    if (node != nullptr && !may_remove(*node)) {
      // Defence in depth: the planner never proposes owned hardware (model/node.h), and a bug
      // there must not delete a machine the team owns.
      recorder_.action(ActionRecord{ActionKind::Keep,
                                    d.node,
                                    "not removed: owned hardware is never removed",
                                    {{"node", d.node}}});
      continue;
    }
    const bool registered = node != nullptr && node->state != NodeState::InFlight;
    if (registered) {
      if (!node->unschedulable && cluster_.cordon(d.node)) st.cordoned.insert(d.node);
      st.draining.insert(d.node);
      bool blocked = false;
      for (const auto& pod : d.evict) {
        auto [ns, name] = split_pod_key(pod);
        EvictOutcome out = cluster_.evict(ns, name);
        if (out == EvictOutcome::BlockedByBudget || out == EvictOutcome::Failed) {
          blocked = true;
          recorder_.action(ActionRecord{
              ActionKind::EvictBlocked,
              pod,
              "eviction refused (disruption budget); drain of node " + d.node +
                  " stopped, node uncordoned, retried once it is empty for scaleDown.emptyAfter "
                  "again",
              {{"node", d.node}}});
          break;
        }
        if (out == EvictOutcome::Evicted) {
          recorder_.action(ActionRecord{
              ActionKind::Evict, pod, "evicted to remove node " + d.node, {{"node", d.node}}});
        }
      }
      if (blocked) {
        // A PodDisruptionBudget says not now. Waiting cordoned would keep the node out of
        // scheduling for as long as the budget holds (forever, for a budget that allows no
        // disruption): give it back, and let the empty timer run again before the next try.
        give_back(d.node);
        continue;
      }
      if (d.kind == RemoveReason::Empty && !options_.synchronous_world) {
        // A pod may have been bound to it since the snapshot: it is deleted on a later loop,
        // if still empty then (finish_empty_removals). A world that moves only between loops
        // (the simulator) has no such race.
        cluster_.add_taint(d.node, Taint{planner::kToBeDeletedTaint, std::to_string(now),
                                         TaintEffect::NoSchedule});
        st.cordoned_empty.emplace(d.node, std::make_pair(d, now));
        st.force_plan = true;
        continue;
      }
      record_event(node_ref(d.node), "Normal", "RemovingNode",
                   "fitscale removes this node: " + d.reason);
      cluster_.delete_node(d.node);
    }
    finish_removal(d, now, result);
  }
}

// A removal that will not happen: the node is uncordoned if fitscale cordoned it, and its empty
// timer starts again before the next try.
void Controller::give_back(const std::string& node) {
  State& st = *state_;
  if (st.cordoned.erase(node) != 0) cluster_.uncordon(node);
  st.draining.erase(node);
  st.empty_since.erase(node);
  st.kept.forget_empty(node);
  st.force_plan = true;
}

void Controller::finish_removal(const RemoveDecision& d, Time now, LoopResult& result) {
  State& st = *state_;
  if (!d.instance_id.empty()) {
    cloud_.terminate({d.instance_id});
    if (launches_) launches_->removed(d, now);
    if (ledger_ != nullptr && st.metered.erase(d.instance_id) != 0) {
      ledger_->node_stopped(d.instance_id, now);
      st.pods_signature.erase(d.instance_id);
    }
  }
  st.empty_since.erase(d.node);
  st.kept.forget_empty(d.node);
  st.cordoned.erase(d.node);
  recorder_.action(remove_record(d, false));
  ++result.removed;
}

void Controller::finish_empty_removals(const Snapshot& snapshot, Time now, LoopResult& result) {
  State& st = *state_;
  if (!st.adopted_cordons) {
    // Started (or elected) between another run's two steps: its cordoned, to-be-deleted nodes
    // are finished or given back as if this run had cordoned them.
    st.adopted_cordons = true;
    for (const Node& n : snapshot.nodes) {
      if (!n.managed || n.state == NodeState::InFlight) continue;
      const bool marked = std::any_of(n.taints.begin(), n.taints.end(), [](const Taint& t) {
        return t.key == planner::kToBeDeletedTaint;
      });
      if (!marked || st.cordoned_empty.count(n.name) != 0) continue;
      RemoveDecision d;
      d.node = n.name;
      d.instance_id = n.instance_id;
      d.kind = RemoveReason::Empty;
      d.reason = "empty, cordoned by an earlier run";
      st.cordoned_empty.emplace(n.name, std::make_pair(std::move(d), now));
      if (n.unschedulable) st.cordoned.insert(n.name);
      st.draining.insert(n.name);
      st.force_plan = true;
    }
  }
  if (st.cordoned_empty.empty()) return;
  std::unordered_map<std::string_view, std::vector<const Pod*>> on_node;
  for (const auto& [name, _] : st.cordoned_empty) on_node[name];
  for (const Pod& p : snapshot.pods) {
    if (p.node_name.empty()) continue;
    auto it = on_node.find(p.node_name);
    if (it != on_node.end()) it->second.push_back(&p);
  }
  for (auto it = st.cordoned_empty.begin(); it != st.cordoned_empty.end();) {
    const RemoveDecision& d = it->second.first;
    const planner::DrainCheck check = planner::check_drain(it->second.second, now, on_node[d.node]);
    if (check.step == planner::DrainStep::Wait) {
      st.force_plan = true;
      ++it;
      continue;
    }
    if (check.step == planner::DrainStep::GiveBack) {
      recorder_.action(ActionRecord{
          ActionKind::Keep, d.node, "not removed, uncordoned: " + check.why, {{"node", d.node}}});
      record_event(node_ref(d.node), "Normal", "RemovalCancelled",
                   "fitscale keeps this node: " + check.why);
      give_back(d.node);
      cluster_.remove_taint(d.node, planner::kToBeDeletedTaint);
      it = st.cordoned_empty.erase(it);
      continue;
    }
    const bool registered = std::any_of(
        snapshot.nodes.begin(), snapshot.nodes.end(),
        [&](const Node& n) { return n.name == d.node && n.state != NodeState::InFlight; });
    if (registered) {
      record_event(node_ref(d.node), "Normal", "RemovingNode",
                   "fitscale removes this node: " + d.reason);
      cluster_.delete_node(d.node);
    }
    finish_removal(d, now, result);
    it = st.cordoned_empty.erase(it);
  }
}

void Controller::report_kept(const Plan& p) {
  // A node stays for the same reason loop after loop: say so when the reason is new.
  State& st = *state_;
  std::map<std::string, std::string> now_kept;
  for (const auto& k : p.keep) {
    auto was = st.kept_reason.find(k.node);
    if (was == st.kept_reason.end() || was->second != k.reason) {
      recorder_.action(ActionRecord{
          ActionKind::Keep, k.node, "not removed though idle: " + k.reason, {{"node", k.node}}});
    }
    now_kept.emplace(k.node, k.reason);
  }
  st.kept_reason = std::move(now_kept);
}

namespace {
// The Event reason a person filters on: a budget that will let the job start later (BudgetWait)
// is not one that never will (BudgetRefused), and neither is "no offering fits"
// (cluster-autoscaler's NotTriggerScaleUp).
const char* event_reason(UnschedulableKind k) {
  switch (k) {
    case UnschedulableKind::BudgetWait:
      return "BudgetWait";
    case UnschedulableKind::BudgetRefused:
      return "BudgetRefused";
    case UnschedulableKind::NoOffering:
      return "NotTriggerScaleUp";
    case UnschedulableKind::CapacityBackoff:
      return "CapacityBackoff";
    case UnschedulableKind::GangIncomplete:
      return "GangIncomplete";
  }
  return "NotTriggerScaleUp";
}
}  // namespace

void Controller::report_unschedulable(const Plan& p, LoopResult& result) {
  State& st = *state_;
  st.pods_waiting = false;
  for (const auto& u : p.unschedulable) {
    const char* kind = to_string(u.kind);
    if (u.kind == UnschedulableKind::BudgetWait) st.pods_waiting = true;
    const bool refused = u.kind == UnschedulableKind::BudgetRefused;
    if (refused) ++result.refused;
    std::string& last = st.last_pod_event[u.pod];
    const std::string event_key = std::string(kind) + ":" + u.reason;
    if (last == event_key) continue;  // say it once, not every loop
    last = event_key;
    record_event(pod_ref(u.pod), "Warning", event_reason(u.kind), u.reason);
    if (refused || u.kind == UnschedulableKind::NoOffering) {
      if (!st.refused_jobs.insert(u.job).second) continue;
    }
    // One log line per job and reason (the log recorder drops an unschedulable job's repeats).
    recorder_.action(ActionRecord{refused ? ActionKind::Refuse : ActionKind::Unschedulable,
                                  u.job,
                                  u.reason,
                                  {{"pod", u.pod}, {"kind", kind}}});
  }
  // Forget pods the plan no longer mentions, so the maps stay as small as the cluster.
  if (st.last_pod_event.size() > 4 * (p.unschedulable.size() + p.placements.size() + 64)) {
    std::set<std::string> keep;
    for (const auto& u : p.unschedulable) keep.insert(u.pod);
    for (const auto& [pod, node] : p.placements) keep.insert(pod);
    std::erase_if(st.last_pod_event, [&](const auto& kv) { return keep.count(kv.first) == 0; });
  }
}

Time Controller::next_timer(const Snapshot& snapshot, const Policy& policy, Time now) const {
  const State& st = *state_;
  Time next = kNever;
  // A timer due now was seen by this plan; one the planner judged not quite due yet (its
  // comparison may be strict) is looked at again on the next loop.
  auto consider = [&](Time t) {
    if (t >= now) next = std::min(next, std::max(t, now + 1));
  };
  for (const auto& n : snapshot.nodes) {
    const Time launched = n.launched_at != 0 ? n.launched_at : n.created;
    if (n.empty_since) {
      // Removable once empty past its TTL and past scaleDown.delayAfterLaunch (both: the later).
      if (const auto ttl = planner::empty_after(n, catalog_, policy))
        consider(std::max(*n.empty_since + *ttl, launched + policy.delay_after_launch_s));
    }
    if (n.managed && (n.state == NodeState::InFlight ||
                      (n.state == NodeState::Registered && !n.not_ready_since)))
      consider(launched + policy.register_timeout_s);
    if (n.managed && n.state == NodeState::Registered && n.not_ready_since)
      consider(*n.not_ready_since + policy.not_ready_after_s);
  }
  for (const auto& [offering, until] : st.backoff) consider(until);
  return next;
}

}  // namespace fitscale
