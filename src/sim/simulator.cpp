#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <unordered_map>

#include "controller/controller.h"
#include "controller/snapshot_builder.h"
#include "cost/attribution.h"
#include "cost/memory_ledger.h"
#include "model/budget_gate.h"
#include "model/error.h"
#include "model/extended_resource_toleration.h"
#include "planner/baseline_policy.h"
#include "planner/capacity_type.h"
#include "planner/policy_from_config.h"
#include "planner/predicates.h"
#include "sim/random.h"
#include "sim/sim_cluster.h"
#include "sim/virtual_clock.h"

namespace fitscale {

namespace {

// The key (Offering::key) of the offering an instance was launched from; an instance in a
// reservation names it in the labels its Node is to carry.
std::string offering_key_of(const Instance& inst) {
  std::string key = inst.instance_type + "/" + inst.zone + "/" + to_string(inst.capacity_type);
  if (auto r = inst.node_labels.find(label::kCapacityReservationId); r != inst.node_labels.end())
    key += "/" + r->second;
  return key;
}

// Events at one instant run in this order: the cloud and the trace first, then the scheduler
// binds, then the report samples, then the controller looks.
enum Kind : int {
  kOutage = 0,
  kSubmit = 1,
  kBoot = 2,
  kInterrupt = 3,
  kComplete = 4,
  kSample = 5,
  kTick = 6
};

struct Event {
  Seconds t = 0;  // since trace start
  int kind = 0;
  std::uint64_t seq = 0;
  std::uint64_t a = 0, b = 0;
};
struct Later {
  bool operator()(const Event& x, const Event& y) const {
    if (x.t != y.t) return x.t > y.t;
    if (x.kind != y.kind) return x.kind > y.kind;
    return x.seq > y.seq;
  }
};

enum class Phase { Waiting, Pending, Running, Completed, Refused };

struct Job {
  const TraceJob* trace = nullptr;
  Phase phase = Phase::Waiting;
  std::vector<std::string> pods;
  std::optional<Seconds> first_start;
  Seconds run_start = 0;
  Seconds work_done = 0;    // checkpointed progress
  std::uint64_t epoch = 0;  // bumped on interruption: a stale completion event is ignored
  std::vector<std::size_t> run_meters;  // the instance each replica runs on (this run)
  double lower_bound_usd_per_hour = 0;  // of all its replicas, counted once it is served
};

// One launched instance from launch to termination. The ledger meters and attributes its cost;
// the engine only notes what the ledger cannot know: when it registered and when it was empty,
// for the report's idle cost and its breakdown of the excess over the lower bound.
struct Meter {
  std::string id;
  std::string node;  // Node name once registered
  CapacityType capacity_type = CapacityType::Spot;
  Micros price = 0;
  std::int64_t gpus = 0;
  Resources alloc;
  Seconds launched = 0;
  std::optional<Seconds> end;
  bool registered = false;
  std::optional<Seconds> empty_since;  // registered and without a metered pod since then
};

// Collects the controller's refusals so the engine can close those jobs.
class RefusalRecorder final : public Recorder {
 public:
  struct Item {
    std::string job, reason;
  };
  void action(const ActionRecord& r) override {
    // For good: refused by a budget, or no offering can ever hold it. A job that waits (for a
    // budget, a backed-off offering, its gang) is reconsidered and stays pending.
    auto kind = r.fields.find("kind");
    const bool never =
        r.kind == ActionKind::Refuse ||
        (r.kind == ActionKind::Unschedulable &&
         (kind == r.fields.end() || kind->second == to_string(UnschedulableKind::NoOffering)));
    if (never) items.push_back({r.subject, r.reason});
    if (r.kind == ActionKind::MaxRuntimeExceeded && r.fields.count("period") != 0 &&
        r.fields.at("period") == "1") {
      overruns.push_back({r.fields.at("job"), r.fields.at("namespace"), 0,
                          std::stoll(r.fields.at("runtime_s")), r.fields.at("action")});
    }
  }
  void planned(const Snapshot&, const Plan&, const LoopStats& s) override {
    planned_loops += s.skipped ? 0 : 1;
  }
  void loop_finished(const LoopStats&) override { ++loops; }
  std::vector<Item> items;
  std::vector<SimOverrun> overruns;  // at_s filled by the engine
  std::int64_t loops = 0, planned_loops = 0;
};

std::string shape_key(const TraceJob& j) {
  return std::to_string(j.requests.cpu_milli) + "/" + std::to_string(j.requests.memory_bytes) +
         "/" + std::to_string(j.requests.gpus) + "/" + j.gpu_model +
         (j.on_demand ? "/od" : "/any") + "/" + std::to_string(j.replicas);
}

class Engine {
 public:
  Engine(const std::vector<TraceJob>& trace, const Catalog& catalog, const SimOptions& o,
         Ledger* ledger, Recorder* extra)
      : trace_(trace),
        catalog_(catalog),
        o_(o),
        clock_(o.start),
        cloud_(catalog, clock_, cloud_options(o)),
        rng_(o.seed),
        fanout_(extra != nullptr ? std::vector<Recorder*>{&refusals_, extra}
                                 : std::vector<Recorder*>{&refusals_}),
        own_ledger_(ledger == nullptr ? std::make_unique<MemoryLedger>() : nullptr),
        ledger_(ledger != nullptr ? *ledger : *own_ledger_),
        spent_before_(ledger_.spent_to_date(o.start)),
        controller_(cluster_, cloud_, catalog, clock_, &ledger_, fanout_,
                    controller_options(o, extra != nullptr)),
        gate_scope_(gate_scope(o.policy)),
        disruptor_(o.disruption) {
    for (const auto& o : catalog_.offerings) {
      offering_by_key_.emplace(o.key(), &o);
      if (o.pool_index < catalog_.pools.size())
        offering_by_key_.emplace(o.key() + "#" + catalog_.pools[o.pool_index].name, &o);
    }
  }

  SimReport run();

 private:
  static SimCloudOptions cloud_options(const SimOptions& o) {
    SimCloudOptions c;
    c.boot_delay_cpu_s = o.boot_delay_cpu_s;
    c.boot_delay_gpu_s = o.boot_delay_gpu_s;
    c.cluster_name = o.cluster_name;
    return c;
  }
  static BudgetGateScope gate_scope(const Policy& policy) {
    BudgetGateScope s;
    s.enabled = policy.enforce_budgets && policy.budgets.gate;
    s.budgets = policy.budgets;
    return s;
  }
  static ControllerOptions controller_options(const SimOptions& o, bool outside_recorder) {
    ControllerOptions c;
    c.policy = o.policy;
    c.offering_backoff_s = o.offering_backoff_s;
    c.cluster_name = o.cluster_name;
    c.synchronous_world = true;
    // The engine's report reads the ledger itself, so without a recorder from outside (budget
    // alerts read Snapshot::spend on every plan) only admission needs the budgets' spend.
    c.spend_only_for_admission = !outside_recorder;
    return c;
  }

  void push(Seconds t, int kind, std::uint64_t a = 0, std::uint64_t b = 0) {
    queue_.push(Event{t, kind, ++seq_, a, b});
  }
  void submit(std::size_t j);
  void tick();
  void boot(std::size_t m);
  void interrupt(std::size_t m);
  void complete(std::size_t j, std::uint64_t epoch);
  void schedule();
  void sample();
  void fail_job(std::size_t j, bool evicted = false);
  void disrupt();
  void terminate_job(std::size_t j);
  void refuse(std::size_t j, const std::string& reason);
  void start_job(std::size_t j);
  void sync_pods(std::size_t m);
  void sync_pods(const std::set<std::string>& nodes);
  std::map<std::string, Micros, std::less<>> spent_so_far() const;
  void finish_meter(std::size_t m, Seconds at);
  void notice_cloud_changes();
  bool all_jobs_done() const { return terminal_ == jobs_.size(); }
  double lower_bound_rate(const Job& job, const Pod& exemplar);
  void note_committed();
  bool had_live_meters_ = false;

  const std::vector<TraceJob>& trace_;
  const Catalog& catalog_;
  const SimOptions& o_;
  VirtualClock clock_;
  SimCluster cluster_;
  SimCloud cloud_;
  SimRandom rng_;
  RefusalRecorder refusals_;
  FanoutRecorder fanout_;
  // Every dollar in the report's cost section comes from this ledger: the controller meters into
  // it as in `fitscale run`, and the engine tells it the exact moment of what happens between
  // controller loops (binds, completions, interruptions), which the controller would only see
  // up to one interval late.
  std::unique_ptr<MemoryLedger> own_ledger_;
  Ledger& ledger_;
  std::map<std::string, Micros, std::less<>> spent_before_;  // a caller's ledger may hold more
  Controller controller_;

  std::priority_queue<Event, std::vector<Event>, Later> queue_;
  std::uint64_t seq_ = 0;
  Seconds now_ = 0;
  bool sched_dirty_ = false;
  const BudgetGateScope gate_scope_;
  Disruptor disruptor_;  // a baseline's evictions (sim/baseline_disruption.h)

  std::vector<Job> jobs_;
  std::unordered_map<std::string, std::size_t> job_by_id_;
  std::unordered_map<std::string, std::size_t> job_by_pod_;
  std::set<std::size_t> pending_;  // by index = submit order
  std::size_t terminal_ = 0;       // completed or refused
  std::size_t submitted_ = 0;
  std::size_t running_jobs_ = 0;

  std::vector<Meter> meters_;
  std::map<std::string, std::size_t> live_meters_;  // instance id -> index
  std::unordered_map<std::string, std::size_t> meter_by_node_;
  std::string last_seen_instance_;
  std::uint64_t seen_cloud_generation_ = 0;
  std::size_t seen_terminations_ = 0;  // of cloud_.terminations()
  std::map<std::string, const Offering*> offering_by_key_;

  // Running totals for the report.
  std::int64_t live_gpus_ = 0, used_gpus_ = 0, pending_pods_ = 0, running_pods_ = 0;
  Micros live_price_ = 0;
  double gpu_seconds_used_ = 0;
  Micros boot_micros_ = 0;       // node time before registration
  Micros idle_tail_micros_ = 0;  // registered, no metered pod
  double lost_usd_ = 0;          // node share of runs cut short, beyond their checkpoint
  double evicted_usd_ = 0;       // the same, for runs a baseline's eviction cut short
  std::map<std::string, double> lb_cache_;
  std::map<std::string, std::vector<double>> ns_waits_;  // by namespace, for its team's row
  Seconds last_progress_ = 0;
  std::optional<Seconds> all_done_at_;
  bool stopped_ = false;
  SimReport report_;
};

// Tells the ledger which metered pods a node has now (a no-op when nothing changed) and notes
// the stretches it stands empty.
void Engine::sync_pods(std::size_t idx) {
  Meter& m = meters_[idx];
  if (m.end || !m.registered) return;
  std::vector<PodUsage> usage;
  if (const SimNode* n = cluster_.node(m.node)) {
    for (const auto& key : n->pods) {
      const Pod* p = cluster_.pod(key);
      if (p != nullptr && p->metered())
        usage.push_back(PodUsage{p->key(), p->ns, p->job_key(), p->requests});
    }
  }
  const bool empty = usage.empty();
  ledger_.pods_changed(m.id, usage, o_.start + now_);
  if (empty && !m.empty_since) {
    m.empty_since = now_;
  } else if (!empty && m.empty_since) {
    idle_tail_micros_ += cost::node_cost(m.price, m.launched, *m.empty_since, now_);
    m.empty_since.reset();
  }
}

void Engine::sync_pods(const std::set<std::string>& nodes) {
  for (const auto& node : nodes) {
    auto it = meter_by_node_.find(node);
    if (it != meter_by_node_.end()) sync_pods(it->second);
  }
}

std::map<std::string, Micros, std::less<>> Engine::spent_so_far() const {
  auto spent = ledger_.spent_to_date(o_.start + now_);
  for (const auto& [ns, before] : spent_before_) spent[ns] -= before;
  return spent;
}

void Engine::finish_meter(std::size_t idx, Seconds at) {
  Meter& m = meters_[idx];
  if (m.end) return;
  ledger_.node_stopped(m.id, o_.start + at);
  if (!m.registered) {
    boot_micros_ += cost::node_cost(m.price, m.launched, m.launched, at);
  } else if (m.empty_since) {
    idle_tail_micros_ += cost::node_cost(m.price, m.launched, *m.empty_since, at);
  }
  m.end = at;
  live_meters_.erase(m.id);
  if (m.registered) meter_by_node_.erase(m.node);
  live_gpus_ -= m.gpus;
  live_price_ -= m.price;
  if (!m.registered) ++report_.nodes.never_registered;
}

void Engine::submit(std::size_t j) {
  Job& job = jobs_[j];
  const TraceJob& t = *job.trace;
  job.phase = Phase::Pending;
  ++submitted_;
  for (std::int64_t r = 0; r < t.replicas; ++r) {
    Pod p;
    p.ns = t.ns;
    p.name = t.job + "-" + std::to_string(r);
    p.uid = p.name;
    p.owner = OwnerRef{"Job", t.job, t.job};
    p.labels.emplace(label::kJob, t.job);
    if (t.replicas > 1) {
      p.labels.emplace(label::kGang, t.job);
      p.labels.emplace(label::kGangSize, std::to_string(t.replicas));
      p.gang = Gang{t.job, t.replicas};
    }
    p.requests = t.requests;
    if (!t.gpu_model.empty()) p.node_selector.emplace(label::kGpuModel, t.gpu_model);
    if (t.on_demand) p.node_selector.emplace(label::kCapacityType, "on-demand");
    p.annotations.emplace(annotation::kSimDuration, std::to_string(t.duration_s) + "s");
    // What a team that knows its jobs declares (planner/capacity_type.h): spot or on-demand is
    // chosen from the expected loss of an interruption.
    p.annotations.emplace(annotation::kExpectedRuntime, std::to_string(t.duration_s) + "s");
    if (t.checkpoint_interval_s) {
      p.annotations.emplace(annotation::kCheckpointInterval,
                            std::to_string(*t.checkpoint_interval_s) + "s");
    }
    // As a real cluster's ExtendedResourceToleration admission does: GPU pods tolerate the
    // default pool's nvidia.com/gpu taint.
    add_extended_resource_tolerations(p);
    p.created = o_.start + now_;
    p.active_deadline_s = t.max_runtime_s;
    // The budget gate's webhook, as `fitscale run` serves it: the pod waits for admission.
    if (budget_gate_applies(gate_scope_, NewPod{p.ns}))
      p.scheduling_gates.emplace_back(kBudgetGate);
    if (r == 0)
      job.lower_bound_usd_per_hour = lower_bound_rate(job, p) * static_cast<double>(t.replicas);
    job.pods.push_back(p.key());
    job_by_pod_[p.key()] = j;
    cluster_.add_pod(std::move(p));
  }
  pending_pods_ += t.replicas;
  pending_.insert(j);
  sched_dirty_ = true;
  last_progress_ = now_;
}

double Engine::lower_bound_rate(const Job& job, const Pod& exemplar) {
  const std::string key = shape_key(*job.trace);
  auto it = lb_cache_.find(key);
  if (it != lb_cache_.end()) return it->second;
  Policy policy = o_.policy;
  policy.unavailable_offerings.clear();
  const double rate = lower_bound_usd_per_hour(exemplar, catalog_, policy);
  lb_cache_.emplace(key, rate);
  return rate;
}

void Engine::start_job(std::size_t j) {
  Job& job = jobs_[j];
  const TraceJob& t = *job.trace;
  job.phase = Phase::Running;
  job.run_start = now_;
  if (!job.first_start) {
    job.first_start = now_;
    report_.wait_samples_s.push_back(static_cast<double>(now_ - t.submit_s));
    ns_waits_[t.ns].push_back(static_cast<double>(now_ - t.submit_s));
    // The lower bound covers served jobs only (issue 12): a refused job costs nothing, and a
    // bound that counted it would make a plan that refuses everything look cheap.
    report_.lower_bound_usd +=
        job.lower_bound_usd_per_hour * static_cast<double>(t.duration_s) / 3600.0;
  }
  pending_.erase(j);
  ++running_jobs_;
  pending_pods_ -= t.replicas;
  running_pods_ += t.replicas;
  used_gpus_ += t.replicas * t.requests.gpus;
  push(now_ + std::max<Seconds>(1, t.duration_s - job.work_done), kComplete, j, job.epoch);
  last_progress_ = now_;
}

// The nodes a pod of a trace shape may go to, by what decides it in the simulator's pods (built
// in submit()): a GPU model or capacity type selector, and the GPU toleration of GPU pods.
std::string constraint_key(const TraceJob& j) {
  return j.gpu_model + (j.on_demand ? "|od|" : "|any|") + (j.requests.gpus > 0 ? "gpu" : "cpu");
}

void Engine::schedule() {
  // Pending jobs in submit order; a gang binds whole or not at all (a coscheduling scheduler).
  // Indexed by class and node (issue 18 item 3): which nodes admit a class (labels, taints) is
  // found once a pass per class, by pointer, so each pending job only checks room on those;
  // a pass only binds, so a node's room only shrinks and no node joins while it runs.
  struct Candidate {
    const std::string* name;
    SimNode* node;
  };
  std::unordered_map<std::string, std::vector<Candidate>> admitting;  // by constraint_key
  std::set<std::string> failed_shapes;  // capacity only shrinks during a pass
  std::vector<std::size_t> started;
  std::set<std::string> touched;
  std::vector<std::pair<SimNode*, Resources>> taken;  // tentative free room, this job's nodes
  std::vector<Candidate> where;
  for (std::size_t j : pending_) {
    const Job& job = jobs_[j];
    const TraceJob& t = *job.trace;
    const bool gpu = t.requests.gpus > 0;
    const auto& room = gpu ? cluster_.nodes_with_free_gpus() : cluster_.nodes_with_free_cpu();
    if (room.empty()) {
      if (cluster_.nodes_with_free_cpu().empty() && cluster_.nodes_with_free_gpus().empty()) break;
      continue;
    }
    const std::string shape = shape_key(t);
    if (failed_shapes.count(shape) != 0) continue;
    const Pod* exemplar = cluster_.pod(job.pods.front());
    // kube-scheduler never binds a gated pod: a job the budget gate holds waits for the
    // controller to admit it (it releases a gang whole).
    if (exemplar->scheduling_gated()) continue;
    auto [slot, fresh] = admitting.try_emplace(constraint_key(t));
    if (fresh) {
      for (const auto& name : room) {
        SimNode* n = cluster_.node(name);
        if (binder_static_misfit(*exemplar, *n)) continue;
        slot->second.push_back(Candidate{&n->node.name, n});  // the room set may drop `name`
      }
    }
    const std::vector<Candidate>& candidates = slot->second;
    taken.clear();
    where.clear();
    for (std::int64_t r = 0; r < t.replicas; ++r) {
      const Candidate* best = nullptr;
      Resources best_left;
      for (const Candidate& c : candidates) {
        const Resources& now_free = c.node->free;
        // Still in the room set the old scan walked (a bind this pass may have filled it).
        if (now_free.pods <= 0 ||
            (gpu ? now_free.gpus <= 0 : now_free.cpu_milli <= 0 || now_free.memory_bytes <= 0))
          continue;
        auto tk = std::find_if(taken.begin(), taken.end(),
                               [&](const auto& kv) { return kv.first == c.node; });
        const Resources& free = tk != taken.end() ? tk->second : now_free;
        if (binder_dynamic_misfit(*exemplar, *c.node, free)) continue;
        Resources left = free - t.requests;
        // Most-allocated first: fill the node that will have least left, so others can empty.
        if (best == nullptr || left.gpus < best_left.gpus ||
            (left.gpus == best_left.gpus && left.cpu_milli < best_left.cpu_milli)) {
          best = &c;
          best_left = left;
        }
      }
      if (best == nullptr) break;
      auto tk = std::find_if(taken.begin(), taken.end(),
                             [&](const auto& kv) { return kv.first == best->node; });
      if (tk != taken.end()) {
        tk->second = best_left;
      } else {
        taken.emplace_back(best->node, best_left);
      }
      where.push_back(*best);
    }
    if (static_cast<std::int64_t>(where.size()) != t.replicas) {
      failed_shapes.insert(shape);
      continue;
    }
    Job& bound = jobs_[j];
    bound.run_meters.clear();
    for (std::size_t r = 0; r < where.size(); ++r) {
      const std::string& node = *where[r].name;
      cluster_.bind(bound.pods[r], node, o_.start + now_);
      bound.run_meters.push_back(meter_by_node_.at(node));
      touched.insert(node);
    }
    started.push_back(j);
  }
  sync_pods(touched);
  for (std::size_t j : started) start_job(j);
}

void Engine::fail_job(std::size_t j, bool evicted) {
  Job& job = jobs_[j];
  const TraceJob& t = *job.trace;
  if (job.phase == Phase::Running) {
    const Seconds progress = now_ - job.run_start;
    gpu_seconds_used_ += static_cast<double>(progress * t.replicas * t.requests.gpus);
    const Seconds before = job.work_done;
    if (t.checkpoint_interval_s) {
      job.work_done = std::min(t.duration_s, job.work_done + progress / *t.checkpoint_interval_s *
                                                                 *t.checkpoint_interval_s);
    }
    // The run's time past its last checkpoint is paid for again: priced at what its pods' share
    // of their nodes cost, as the ledger charges them.
    const Seconds lost = progress - (job.work_done - before);
    double& lost_usd = evicted ? evicted_usd_ : lost_usd_;
    for (std::size_t idx : job.run_meters) {
      const Meter& m = meters_[idx];
      lost_usd += static_cast<double>(m.price) / 1e6 *
                  static_cast<double>(cost::dominant_share(t.requests, m.alloc)) /
                  static_cast<double>(cost::kWholeNode) * static_cast<double>(lost) / 3600.0;
    }
    if (evicted) {
      ++report_.evictions.jobs;
      report_.evictions.pods += t.replicas;
      report_.evictions.lost_job_hours += static_cast<double>(lost) / 3600.0;
      report_.evictions.lost_gpu_hours +=
          static_cast<double>(lost * t.replicas * t.requests.gpus) / 3600.0;
    }
    ++job.epoch;
    ++report_.sim.restarts;
    --running_jobs_;
    running_pods_ -= t.replicas;
    pending_pods_ += t.replicas;
    used_gpus_ -= t.replicas * t.requests.gpus;
    job.phase = Phase::Pending;
    pending_.insert(j);
  }
  std::set<std::string> touched;
  // A restarted job's pods are new pods in Kubernetes (its Job controller creates them), so the
  // webhook gates them again: the job is admitted again before it runs again.
  const bool gate = budget_gate_applies(gate_scope_, NewPod{t.ns});
  for (const auto& key : job.pods) {
    const Pod* p = cluster_.pod(key);
    if (p != nullptr && !p->node_name.empty()) {
      touched.insert(p->node_name);
      cluster_.unbind(key);
    }
    if (gate) cluster_.add_scheduling_gate(key, kBudgetGate);
  }
  sync_pods(touched);
  sched_dirty_ = true;
}

void Engine::complete(std::size_t j, std::uint64_t epoch) {
  Job& job = jobs_[j];
  if (job.phase != Phase::Running || job.epoch != epoch) return;
  const TraceJob& t = *job.trace;
  gpu_seconds_used_ += static_cast<double>((now_ - job.run_start) * t.replicas * t.requests.gpus);
  std::set<std::string> touched;
  for (const auto& key : job.pods) {
    const Pod* p = cluster_.pod(key);
    if (p != nullptr && !p->node_name.empty()) touched.insert(p->node_name);
    cluster_.remove_pod(key);
    job_by_pod_.erase(key);
  }
  sync_pods(touched);
  job.phase = Phase::Completed;
  --running_jobs_;
  running_pods_ -= t.replicas;
  used_gpus_ -= t.replicas * t.requests.gpus;
  ++report_.jobs.completed;
  ++terminal_;
  sched_dirty_ = true;
  last_progress_ = now_;
}

// The controller deleted the job's pods past its worst case (maxRuntimeAction: terminate): it
// ends there, unfinished, and its nodes empty out for scale-down to remove.
void Engine::terminate_job(std::size_t j) {
  Job& job = jobs_[j];
  if (job.phase != Phase::Running) return;
  const TraceJob& t = *job.trace;
  gpu_seconds_used_ += static_cast<double>((now_ - job.run_start) * t.replicas * t.requests.gpus);
  for (const auto& key : job.pods) {
    cluster_.remove_pod(key);  // a gang's other pods go with it
    job_by_pod_.erase(key);
  }
  for (std::size_t idx : job.run_meters) sync_pods(idx);
  job.phase = Phase::Completed;
  --running_jobs_;
  running_pods_ -= t.replicas;
  used_gpus_ -= t.replicas * t.requests.gpus;
  ++report_.jobs.terminated;
  ++terminal_;
  sched_dirty_ = true;
  last_progress_ = now_;
}

void Engine::refuse(std::size_t j, const std::string& reason) {
  Job& job = jobs_[j];
  if (job.phase != Phase::Pending) return;
  const TraceJob& t = *job.trace;
  for (const auto& key : job.pods) {
    cluster_.remove_pod(key);
    job_by_pod_.erase(key);
  }
  pending_.erase(j);
  pending_pods_ -= t.replicas;
  job.phase = Phase::Refused;
  ++report_.jobs.refused;
  ++terminal_;
  report_.refusals.push_back(SimRefusal{t.job, t.ns, now_, reason});
}

void Engine::boot(std::size_t idx) {
  Meter& m = meters_[idx];
  if (m.end) return;  // terminated before it registered
  const Instance* inst = cloud_.find(m.id);
  cloud_.mark_running(m.id);
  Node n;
  n.name = "node-" + m.id.substr(2);
  n.provider_id = inst->provider_id;
  const std::string key = offering_key_of(*inst);
  auto o = offering_by_key_.find(key + "#" + inst->pool);
  if (o == offering_by_key_.end()) o = offering_by_key_.find(key);
  if (o != offering_by_key_.end()) {
    n.labels = o->second->labels;
    n.allocatable = o->second->allocatable;
    n.taints = o->second->taints;  // its pool's (startup taints are gone by Ready here)
  }
  n.labels[std::string(label::kHostname)] = n.name;
  n.state = NodeState::Ready;
  n.created = o_.start + now_;
  boot_micros_ += cost::node_cost(m.price, m.launched, m.launched, now_);
  m.node = n.name;
  m.registered = true;
  m.empty_since = now_;
  meter_by_node_[n.name] = idx;
  cluster_.add_node(std::move(n));
  sched_dirty_ = true;
}

// A baseline's utilisation scale-down or consolidation: the node's pods are evicted (their jobs
// restart, from their last checkpoint or from zero) and its instance terminated.
void Engine::disrupt() {
  for (const Disruption& d : disruptor_.choose(cluster_, o_.start + now_)) {
    auto it = meter_by_node_.find(d.node);
    if (it == meter_by_node_.end()) continue;
    const std::size_t idx = it->second;
    std::set<std::size_t> jobs;
    for (const auto& key : cluster_.remove_node(d.node)) {
      auto j = job_by_pod_.find(key);
      if (j != job_by_pod_.end()) jobs.insert(j->second);
    }
    cloud_.terminate({meters_[idx].id});
    finish_meter(idx, now_);
    ++report_.evictions.nodes;
    ++report_.evictions.nodes_by_reason[d.reason];
    for (std::size_t j : jobs) {
      fail_job(j, true);
      // A job with more work left than a node may live (Karpenter's expireAfter) would be
      // evicted again and again: it never finishes there, so the replay stops it.
      const Job& job = jobs_[j];
      const Seconds left = job.trace->duration_s - job.work_done;
      if (d.reason == "expired" && o_.disruption.expire_after_s &&
          left > *o_.disruption.expire_after_s) {
        // Not served after all: the bound leaves it out, and all it ran is lost to evictions.
        report_.lower_bound_usd -=
            job.lower_bound_usd_per_hour * static_cast<double>(job.trace->duration_s) / 3600.0;
        refuse(j, "never finishes: " + format_duration(left) +
                      " of work left without a checkpoint, longer than expireAfter " +
                      format_duration(*o_.disruption.expire_after_s) +
                      " lets a node live (evicted at expiry)");
      }
    }
  }
}

void Engine::interrupt(std::size_t idx) {
  Meter& m = meters_[idx];
  if (m.end) return;
  cloud_.mark_interruption(m.id);
  std::vector<std::string> lost;
  if (m.registered) lost = cluster_.remove_node(m.node);
  cloud_.terminate({m.id});
  finish_meter(idx, now_);
  ++report_.nodes.interrupted;
  std::set<std::size_t> jobs;
  for (const auto& key : lost) {
    auto it = job_by_pod_.find(key);
    if (it != job_by_pod_.end()) jobs.insert(it->second);
  }
  for (std::size_t j : jobs) fail_job(j);
}

void Engine::notice_cloud_changes() {
  const std::uint64_t gen = *cloud_.generation();
  if (gen == seen_cloud_generation_) return;
  seen_cloud_generation_ = gen;
  // New instances: ids grow with a zero-padded counter, so they sort after everything seen.
  const auto& all = cloud_.all_instances();
  for (auto it = all.upper_bound(last_seen_instance_); it != all.end(); ++it) {
    const Instance& inst = it->second;
    last_seen_instance_ = inst.id;
    Meter m;
    m.id = inst.id;
    m.capacity_type = inst.capacity_type;
    m.price = inst.price_micros_per_hour;
    m.launched = inst.launched_at - o_.start;
    const InstanceType* type = catalog_.find_type(inst.instance_type);
    m.gpus = type != nullptr ? type->gpu : 0;
    auto o = offering_by_key_.find(offering_key_of(inst));
    if (o != offering_by_key_.end()) m.alloc = o->second->allocatable;
    // The ledger already meters it: the controller starts every instance it launches or adopts.
    const std::size_t idx = meters_.size();
    live_gpus_ += m.gpus;
    live_price_ += m.price;
    ++report_.nodes.launched;
    ++report_.nodes.by_instance_type[inst.instance_type];
    live_meters_.emplace(m.id, idx);
    meters_.push_back(std::move(m));
    push(now_ + cloud_.boot_delay(inst.instance_type), kBoot, idx);
    for (const auto& fixed : o_.fixed_interruptions) {
      if (fixed.instance == idx) push(std::max(now_, fixed.at_s), kInterrupt, idx);
    }
    if (o_.interruptions && inst.capacity_type == CapacityType::Spot && type != nullptr &&
        type->spot_interruption_bucket) {
      const double rate = spot_hourly_hazard(*type->spot_interruption_bucket) / 3600.0;
      const double after = rng_.exponential(rate);
      if (after < 1e9) push(now_ + static_cast<Seconds>(std::ceil(after)), kInterrupt, idx);
    }
    last_progress_ = now_;
  }
  // Instances the controller terminated.
  // Only the terminations since the last look, in instance id order as before (the order fails
  // jobs and closes meters in).
  std::vector<std::pair<std::size_t, Seconds>> ended;
  const auto& terminations = cloud_.terminations();
  for (; seen_terminations_ < terminations.size(); ++seen_terminations_) {
    const auto& [id, t] = terminations[seen_terminations_];
    auto live = live_meters_.find(id);
    if (live != live_meters_.end()) ended.emplace_back(live->second, t - o_.start);
  }
  // Meter indexes grow with instance ids (ids are zero-padded counters), so index order is id
  // order.
  std::sort(ended.begin(), ended.end());
  for (const auto& [idx, at] : ended) {
    Meter& m = meters_[idx];
    if (m.registered && cluster_.node(m.node) != nullptr) {
      // Terminated under a registered node: the node goes with it.
      for (const auto& key : cluster_.remove_node(m.node)) {
        auto it = job_by_pod_.find(key);
        if (it != job_by_pod_.end()) fail_job(it->second);
      }
    }
    finish_meter(idx, at);
  }
  report_.nodes.peak =
      std::max<std::int64_t>(report_.nodes.peak, static_cast<std::int64_t>(live_meters_.size()));
}

void Engine::tick() {
  controller_.reconcile();
  if (!cluster_.take_ungated().empty()) sched_dirty_ = true;  // admitted: bind before time moves
  if (cluster_.take_room_opened()) sched_dirty_ = true;       // a reclaim taint went
  note_committed();
  // Pods the controller took away (evicted, node deleted) fail their jobs.
  std::set<std::size_t> failed;
  const std::vector<std::string> taken = cluster_.take_lost();
  for (const auto& key : taken) {
    auto it = job_by_pod_.find(key);
    if (it != job_by_pod_.end()) failed.insert(it->second);
  }
  for (std::size_t j : failed) fail_job(j);
  std::set<std::size_t> ended;
  for (const auto& key : cluster_.take_deleted()) {
    auto it = job_by_pod_.find(key);
    if (it != job_by_pod_.end()) ended.insert(it->second);
  }
  for (std::size_t j : ended) terminate_job(j);
  for (SimOverrun& o : refusals_.overruns) {
    o.at_s = now_;
    report_.past_worst_case.push_back(std::move(o));
  }
  refusals_.overruns.clear();
  if (!taken.empty()) {
    // The pods are unbound already, so which nodes they left is gone: bring every node's
    // metered pods up to date (rare: evictions only).
    for (const auto& [id, idx] : live_meters_) sync_pods(idx);
  }
  notice_cloud_changes();
  if (o_.disruption.mode != DisruptionRules::Mode::None) disrupt();
  for (const auto& item : refusals_.items) {
    auto it = job_by_id_.find(item.job);
    if (it != job_by_id_.end()) refuse(it->second, item.reason);
  }
  refusals_.items.clear();

  if (all_jobs_done()) {
    if (!all_done_at_) all_done_at_ = now_;
    if (live_meters_.empty()) {
      stopped_ = true;
    } else if (now_ - *all_done_at_ >= o_.drain_limit_s) {
      // The controller kept nodes past any reason to: stop them so the bill ends.
      std::vector<std::string> ids;
      for (const auto& [id, idx] : live_meters_) ids.push_back(id);
      for (const auto& id : ids) {
        const std::size_t idx = live_meters_.at(id);
        Meter& m = meters_[idx];
        if (m.registered) cluster_.remove_node(m.node);
        cloud_.terminate({id});
        finish_meter(idx, now_);
      }
      stopped_ = true;
    }
  } else if (submitted_ == jobs_.size() && running_jobs_ == 0 && live_meters_.empty() &&
             now_ - last_progress_ >= o_.stall_limit_s) {
    // Nothing runs, nothing boots, nothing more will arrive: what still waits never will.
    std::vector<std::size_t> stuck(pending_.begin(), pending_.end());
    for (std::size_t j : stuck) {
      refuse(j,
             "still pending after " + format_duration(o_.stall_limit_s) + " with nothing running");
    }
    stopped_ = all_jobs_done();
  }
  if (!stopped_) push(now_ + o_.interval_s, kTick);
}

// The report's budget figures (issue 12): after every loop, what the ledger says each namespace
// is committed per hour (by use) and has spent this UTC month, against its caps.
void Engine::note_committed() {
  if (live_meters_.empty() && !had_live_meters_) return;  // nothing runs: nothing changed
  had_live_meters_ = !live_meters_.empty();
  for (const auto& [ns, s] : ledger_.spend(o_.start + now_)) {
    auto it = report_.namespaces.find(ns);
    if (it == report_.namespaces.end()) continue;
    SimNamespace& v = it->second;
    v.peak_committed_usd_per_hour =
        std::max(v.peak_committed_usd_per_hour, micros_to_dollars(s.committed_micros_per_hour));
    v.max_month_usd = std::max(v.max_month_usd, micros_to_dollars(s.spent_this_month));
  }
}

void Engine::sample() {
  SimSample s;
  s.t_s = now_;
  s.nodes = static_cast<std::int64_t>(live_meters_.size());
  s.gpus_provisioned = live_gpus_;
  s.gpus_used = used_gpus_;
  s.usd_per_hour = static_cast<double>(live_price_) / 1e6;
  s.pending_pods = pending_pods_;
  s.running_pods = running_pods_;
  report_.series.push_back(s);
  const auto spent = spent_so_far();
  for (auto& [ns, v] : report_.namespaces) {
    auto it = spent.find(ns);
    v.cumulative_usd.push_back(it != spent.end() ? micros_to_dollars(it->second) : 0.0);
  }
}

SimReport Engine::run() {
  jobs_.resize(trace_.size());
  for (std::size_t j = 0; j < trace_.size(); ++j) {
    jobs_[j].trace = &trace_[j];
    job_by_id_.emplace(trace_[j].job, j);
    push(trace_[j].submit_s, kSubmit, j);
    SimNamespace& ns = report_.namespaces[trace_[j].ns];
    ++ns.jobs;
    if (ns.cumulative_usd.empty() && !ns.usd_per_hour) {
      const NamespaceBudget b = o_.policy.budgets.for_namespace(trace_[j].ns);
      if (o_.policy.enforce_budgets) {
        ns.usd_per_hour = b.usd_per_hour;
        ns.usd_per_day = b.usd_per_day;
        ns.usd_per_month = b.usd_per_month;
        ns.usd_per_job = b.usd_per_job;
      }
    }
  }
  for (std::size_t i = 0; i < o_.insufficient_capacity.size(); ++i) {
    const CapacityOutage& out = o_.insufficient_capacity[i];
    push(out.from_s, kOutage, i, 1);
    if (out.until_s) push(*out.until_s, kOutage, i, 0);
  }
  report_.sample_step_s = o_.sample_step_s;
  report_.sim.seed = o_.seed;
  report_.sim.policy = o_.policy_name;
  report_.sim.interval_s = o_.interval_s;
  report_.sim.start = format_rfc3339(o_.start);
  push(0, kSample);
  push(0, kTick);
  if (trace_.empty()) stopped_ = true;

  while (!queue_.empty() && !stopped_) {
    // Bind before time moves on. schedule() may push completions earlier than the next event
    // (a job shorter than the gap), so the event to run is read only after it.
    if (sched_dirty_ && (queue_.top().t > now_ || queue_.top().kind >= kSample)) {
      schedule();
      sched_dirty_ = false;
    }
    const Event ev = queue_.top();
    queue_.pop();
    now_ = ev.t;
    clock_.set(o_.start + now_);
    switch (ev.kind) {
      case kOutage: {
        const CapacityOutage& out = o_.insufficient_capacity[ev.a];
        std::string key = !out.offering.empty() ? out.offering
                                                : out.instance_type + "/" + out.zone + "/" +
                                                      to_string(out.capacity_type);
        cloud_.inject_failure(key, "InsufficientInstanceCapacity", ev.b != 0 ? -1 : 0);
        break;
      }
      case kSubmit:
        submit(ev.a);
        break;
      case kBoot:
        boot(ev.a);
        break;
      case kInterrupt:
        interrupt(ev.a);
        break;
      case kComplete:
        complete(ev.a, ev.b);
        break;
      case kSample:
        sample();
        push(now_ + o_.sample_step_s, kSample);
        break;
      case kTick:
        tick();
        if (o_.progress) o_.progress({now_, submitted_, terminal_, jobs_.size()});
        break;
    }
  }
  // Whatever still runs (a queue that ran dry cannot happen with ticks, but be safe) stops now.
  for (const auto& [id, idx] : std::map<std::string, std::size_t>(live_meters_))
    finish_meter(idx, now_);
  if (report_.series.empty() || report_.series.back().t_s != now_) sample();

  // Money from the ledger: every node stopped, so what it charged each namespace is final, and
  // the total is their sum (the bill: each node's micro-dollars from launch to termination).
  Micros total = 0;
  for (const auto& [ns, micros] : spent_so_far()) {
    if (micros == 0) continue;
    report_.cost_usd.by_namespace[ns] = micros_to_dollars(micros);
    total += micros;
  }
  Micros spot = 0;
  double provisioned_gpu_s = 0;
  for (const auto& m : meters_) {
    const Seconds end = m.end.value_or(now_);
    if (m.capacity_type == CapacityType::Spot)
      spot += cost::node_cost(m.price, m.launched, m.launched, end);
    provisioned_gpu_s += static_cast<double>(m.gpus * (end - m.launched));
  }
  report_.cost_usd.total = micros_to_dollars(total);
  report_.cost_usd.spot = micros_to_dollars(spot);
  report_.cost_usd.on_demand = micros_to_dollars(total - spot);
  report_.cost_usd.idle = micros_to_dollars(boot_micros_ + idle_tail_micros_);
  for (auto& [ns, v] : report_.namespaces) {
    auto it = report_.cost_usd.by_namespace.find(ns);
    v.cost_usd = it != report_.cost_usd.by_namespace.end() ? it->second : 0.0;
    v.wait_s = wait_stats(std::move(ns_waits_[ns]));
  }
  for (const SimRefusal& r : report_.refusals) ++report_.namespaces[r.ns].refused;
  // What the total pays beyond the fluid bound, part by part; packing is the rest (the unused
  // share of partly used nodes, and any premium of the offerings chosen over the bound's).
  SimExcess& x = report_.excess_usd;
  x.boot = micros_to_dollars(boot_micros_);
  x.idle = micros_to_dollars(idle_tail_micros_);
  x.lost_to_interruptions = lost_usd_;
  x.lost_to_evictions = evicted_usd_;
  report_.evictions.lost_usd = evicted_usd_;
  x.packing = report_.cost_usd.total - report_.lower_bound_usd - x.boot - x.idle -
              x.lost_to_interruptions - x.lost_to_evictions;
  report_.jobs.submitted = static_cast<std::int64_t>(submitted_);
  report_.wait_s = wait_stats(report_.wait_samples_s);
  report_.gpu_hours.provisioned = provisioned_gpu_s / 3600.0;
  report_.gpu_hours.used = gpu_seconds_used_ / 3600.0;
  report_.sim.virtual_s = static_cast<double>(now_);
  report_.sim.loops = refusals_.loops;
  report_.sim.loops_planned = refusals_.planned_loops;
  return report_;
}

}  // namespace

// Only offerings that can hold at least one of the trace's pod shapes: the planner would never
// choose another, and with ~7,000 offerings in the AWS catalog against a handful that fit a
// GPU trace, every plan is much cheaper this way. Decisions are the same.
Catalog catalog_for_trace(const Catalog& catalog, const std::vector<TraceJob>& jobs) {
  struct Shape {
    Resources requests;
    Labels selector;
  };
  std::map<std::string, Shape> shapes;
  for (const auto& j : jobs) {
    Shape s{j.requests, {}};
    if (!j.gpu_model.empty()) s.selector.emplace(label::kGpuModel, j.gpu_model);
    if (j.on_demand) s.selector.emplace(label::kCapacityType, "on-demand");
    shapes.emplace(shape_key(j), std::move(s));
  }
  Catalog out = catalog;
  std::erase_if(out.offerings, [&](const Offering& o) {
    return std::none_of(shapes.begin(), shapes.end(), [&](const auto& kv) {
      return planner::fits(kv.second.requests, o.allocatable) &&
             matches_node_selector(kv.second.selector, o.labels);
    });
  });
  return out;
}

SimReport simulate(const std::vector<TraceJob>& trace, const Catalog& catalog,
                   const SimOptions& options, Ledger* ledger, Recorder* recorder) {
  // A trace names GPU models in any case, as selectors may ("a100" is the catalog's "A100"):
  // the pods, the shapes and the report carry the catalog's spelling.
  std::vector<TraceJob> jobs = trace;
  for (TraceJob& j : jobs) {
    if (!j.gpu_model.empty())
      j.gpu_model = gpu_model_case(std::move(j.gpu_model), catalog.gpu_models);
  }
  const Catalog trimmed = catalog_for_trace(catalog, jobs);
  Engine engine(jobs, trimmed, options, ledger, recorder);
  return engine.run();
}

void validate_trace(const std::vector<TraceJob>& jobs, const Catalog& catalog,
                    const std::string& source) {
  for (const auto& j : jobs) {
    if (j.gpu_model.empty()) continue;
    if (std::find(catalog.gpu_models.begin(), catalog.gpu_models.end(),
                  gpu_model_case(j.gpu_model, catalog.gpu_models)) != catalog.gpu_models.end()) {
      continue;  // in any case, as selectors match it
    }
    std::string known;
    for (const auto& m : catalog.gpu_models) known += (known.empty() ? "" : ", ") + m;
    throw InputError(source + ":" + std::to_string(j.line) +
                     ": column gpu_model: no instance type in the catalog has \"" + j.gpu_model +
                     "\" GPUs (it has " + known + ")");
  }
}

SimOptions sim_options_from_config(const Config& config) {
  SimOptions o;
  o.policy = with_baseline(policy_from_config(config), config.policy);
  o.disruption = disruption_rules(config.policy);
  o.policy_name = to_string(config.policy);
  o.interval_s = config.controller.interval_s;
  o.offering_backoff_s = config.controller.offering_backoff_s;
  o.cluster_name = config.cluster_name;
  o.boot_delay_cpu_s = config.simulator.boot_delay_cpu_s;
  o.boot_delay_gpu_s = config.simulator.boot_delay_gpu_s;
  o.interruptions = config.simulator.interruptions;
  o.insufficient_capacity = config.simulator.insufficient_capacity;
  return o;
}

}  // namespace fitscale
