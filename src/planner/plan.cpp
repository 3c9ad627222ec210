// plan(): the order of decisions. Each step lives in its own file; this one only sequences them:
// pending pods -> existing and in-flight capacity -> classes and offerings -> jobs admitted
// against budgets, oldest first -> launches grouped by offering -> scale-down.
#include "planner/plan.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "model/dominant_share.h"
#include "model/error.h"
#include "model/gang_sources/gang_of.h"
#include "planner/admission.h"
#include "planner/backfill.h"
#include "planner/capacity_type.h"
#include "planner/gangs.h"
#include "planner/least_waste.h"
#include "planner/offering_choice.h"
#include "planner/packing.h"
#include "planner/placement.h"
#include "planner/pod_class.h"
#include "planner/pool_limits.h"
#include "planner/reasons.h"
#include "planner/scale_down.h"
#include "planner/topology.h"

namespace fitscale {
namespace {

using planner::ClassPacker;
using planner::NewNodes;
using planner::PodClass;

struct GangGroup {
  std::string ns;
  std::string name;
  std::int64_t size = 1;
  std::int64_t running = 0;  // members already bound
  std::vector<std::uint32_t> pending;
  // A group whose sizing object is missing (model/gang_sources/gang_of.h): why it waits.
  std::string size_missing;
  std::optional<Seconds> partial_after = std::nullopt;  // Gang::partial_after
  Time oldest = 0;                                      // creation of its oldest pending pod
};

// One budget unit: a gang, or the pending pods of one Job (or one bare pod).
struct Job {
  std::string_view ns;   // into the snapshot's pods
  std::string_view key;  // Pod::job_key(): into a pod's name or the planner's key store
  Time created = 0;
  std::int32_t priority = 0;  // the highest of its pods'
  std::vector<std::uint32_t> pods;
  int gang = -1;  // index into the gang plans, or -1
};

struct LaunchKey {
  std::uint32_t offering;
  std::string ns;
  std::string job;  // set for a gang's launches, which must stay apart
  bool operator==(const LaunchKey&) const = default;
};

// Per class: why its pods get no new node when no offering takes them (kind, reason).
struct NoOfferingReason {
  UnschedulableKind kind = UnschedulableKind::NoOffering;
  std::string reason;
};

// What decides which offerings a class may use (labels and anti-affinity do not).
bool same_placement(const PodClass& a, const PodClass& b) {
  return a.exemplar->requests == b.exemplar->requests && a.node_selector == b.node_selector &&
         a.affinity == b.affinity && a.exemplar->tolerations == b.exemplar->tolerations &&
         a.on_demand_only == b.on_demand_only;
}
std::size_t placement_hash(const PodClass& c) {
  std::size_t h = std::hash<std::int64_t>{}(c.exemplar->requests.cpu_milli);
  auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(std::hash<std::int64_t>{}(c.exemplar->requests.memory_bytes));
  mix(std::hash<std::int64_t>{}(c.exemplar->requests.gpus));
  for (const auto& t : c.affinity) {
    for (const auto& r : t.requirements) {
      mix(std::hash<std::string>{}(r.key));
      for (const auto& v : r.values) mix(std::hash<std::string>{}(v));
    }
  }
  return h;
}

class Planner {
 public:
  Planner(const Snapshot& s, const Catalog& c, const Policy& p, Time now)
      : s_(s),
        catalog_(c),
        policy_(p),
        now_(now),
        pools_(s, c),
        reservations_end_(std::any_of(c.reservations.begin(), c.reservations.end(),
                                      [](const Reservation& r) { return r.end.has_value(); })) {}

  Plan run() {
    collect_pending();
    // Placement, pricing, admission and launches only serve pending pods: a plan with none (in
    // the simulator, most plans after a job ends) would index every node and its pods, and the
    // catalog's offerings, for nothing.
    if (!pending_.empty()) {
      existing_.emplace(s_, policy_, now_, catalog_.gpu_models);
      drop_incomplete_gangs();
      price_lone_classes();
      // Job by job, oldest first: room on existing and in-flight nodes, then new instances for
      // the rest, both admitted against the budgets together (issue 12), so a job that may not
      // start takes no room planned for another.
      admit_jobs();
      fit_count_caps();
      fit_budget_caps();
      emit_launches();
    }
    auto room = [this]() -> planner::ExistingCapacity& {
      if (!existing_) existing_.emplace(s_, policy_, now_, catalog_.gpu_models);
      return *existing_;
    };
    planner::ScaleDown down = planner::choose_removals(
        s_, catalog_, policy_, now_,
        existing_ ? existing_->used_nodes() : std::vector<std::string_view>{}, room);
    out_.remove = std::move(down.remove);
    out_.keep = std::move(down.keep);
    return std::move(out_);
  }

 private:
  void unschedulable(std::uint32_t pi, UnschedulableKind kind, const std::string& reason) {
    const Pod& p = s_.pods[pi];
    out_.unschedulable.push_back({p.key(), p.job_key(), kind, reason});
  }

  void collect_pending() {
    // Scheduling order: higher priority, then older, then by name (deterministic). One pass
    // over the pods copies out what the sort and the gang split need, so neither chases every
    // comparison into a 600-byte Pod.
    struct Key {
      std::int32_t priority;
      Time created;
      std::uint32_t pod;
      bool gang;
    };
    std::vector<Key> keys;
    for (std::uint32_t i = 0; i < s_.pods.size(); ++i) {
      const Pod& p = s_.pods[i];
      if (p.awaits_capacity())
        keys.push_back({p.priority, p.created, i, p.gang.has_value() && policy_.gangs});
    }
    auto before = [this](const Key& a, const Key& b) {
      if (a.priority != b.priority) return a.priority > b.priority;
      if (a.created != b.created) return a.created < b.created;
      const Pod& x = s_.pods[a.pod];
      const Pod& y = s_.pods[b.pod];
      if (x.ns != y.ns) return x.ns < y.ns;
      return x.name < y.name;
    };
    if (!std::is_sorted(keys.begin(), keys.end(), before))
      std::sort(keys.begin(), keys.end(), before);
    pending_.reserve(keys.size());
    lone_.reserve(keys.size());
    for (const Key& k : keys) {
      pending_.push_back(k.pod);
      if (!k.gang) lone_.push_back(k.pod);
    }
    std::map<std::pair<std::string, std::string>, std::size_t> gang_index;
    for (const Key& k : keys) {
      if (!k.gang) continue;
      const std::uint32_t i = k.pod;
      const Pod& p = s_.pods[i];
      auto [it, fresh] = gang_index.try_emplace({p.ns, p.gang->name}, gangs_.size());
      if (fresh) gangs_.push_back({p.ns, p.gang->name, p.gang->size, 0, {}, {}, {}, p.created});
      GangGroup& g = gangs_[it->second];
      g.pending.push_back(i);
      if (p.gang->size_unknown && g.size_missing.empty())
        g.size_missing = gang_size_missing_reason(p.ns, *p.gang);
      g.size = std::max(g.size, p.gang->size);
      if (p.gang->partial_after) g.partial_after = p.gang->partial_after;
      g.oldest = std::min(g.oldest, p.created);
    }
    if (gangs_.empty()) return;
    for (const Pod& p : s_.pods) {
      if (!p.gang || !p.holds_resources()) continue;
      auto it = gang_index.find({p.ns, p.gang->name});
      if (it != gang_index.end()) ++gangs_[it->second].running;
    }
  }

  void drop_incomplete_gangs() {
    for (GangGroup& g : gangs_) {
      if (!g.size_missing.empty()) {
        for (std::uint32_t pi : g.pending)
          unschedulable(pi, UnschedulableKind::GangIncomplete, g.size_missing);
        g.pending.clear();
        continue;
      }
      const auto have = static_cast<std::int64_t>(g.pending.size()) + g.running;
      // A framework that creates the rest only once these run (Gang::partial_after): what
      // exists is planned as the gang after that long, so the two cannot wait for each other.
      const bool partial_due = g.partial_after && now_ - g.oldest >= *g.partial_after;
      if (have < g.size && !partial_due) {
        std::string reason = "gang " + g.name + " has " + format_count(have) + " of " +
                             format_count(g.size) + " pods; it starts only when all exist";
        if (g.partial_after)
          reason += " (or with those it has once its oldest pod has waited " +
                    std::to_string(*g.partial_after) + " s)";
        for (std::uint32_t pi : g.pending)
          unschedulable(pi, UnschedulableKind::GangIncomplete, reason);
        g.pending.clear();
      }
    }
  }

  // Classes here are slots: one per (pod class, pool it may use), the most preferred pool's
  // first; a pod starts at its class's first slot and moves on when that pool's limits refuse
  // its job (next_slot_).
  void price_lone_classes() {
    all_zone_offerings_ = planner::offerings_in_zones(catalog_, policy_);
    zone_offerings_ = planner::with_room(pools_, all_zone_offerings_);
    // Spot unless a pod's expected loss there is above the on-demand premium (capacity_type.h).
    const std::vector<PodClass> base =
        planner::split_by_expected_loss(planner::build_classes(s_.pods, lone_, catalog_.gpu_models),
                                        s_.pods, catalog_, all_zone_offerings_);
    pod_class_.assign(s_.pods.size(), -1);
    no_offering_.reserve(base.size());
    // Classes that differ only in labels or anti-affinity (topology spread makes many) may
    // use the same offerings: those are chosen once per distinct placement.
    std::unordered_map<std::size_t, std::vector<std::pair<const PodClass*, std::size_t>>> seen;
    std::vector<std::vector<planner::OfferingChoice>> chosen;
    auto choices_of = [&](const PodClass& c) {
      auto& same = seen[placement_hash(c)];
      for (const auto& [other, k] : same) {
        if (same_placement(*other, c)) return chosen[k];
      }
      same.emplace_back(&c, chosen.size());
      chosen.push_back(planner::choose_offerings_by_pool(c, catalog_, policy_, zone_offerings_));
      return chosen.back();
    };
    for (const PodClass& c : base) {
      const std::size_t first = classes_.size();
      for (std::uint32_t pi : c.pods) pod_class_[pi] = static_cast<int>(first);
      // Least waste depends on the class's own requests: applied to its copy of the choice.
      std::vector<planner::OfferingChoice> choices = choices_of(c);
      if (policy_.offering_pick == OfferingPick::LeastWaste)
        planner::keep_least_waste(c, catalog_, choices);
      if (choices.front().usable.empty()) {
        // Its pods may still fit on existing nodes; those that do not get this reason.
        classes_.push_back(c);
        next_slot_.push_back(-1);
        usable_.emplace_back();
        no_offering_.push_back(no_offering(c, choices.front()));
        packers_.emplace_back(std::nullopt);
        continue;
      }
      for (std::size_t k = 0; k < choices.size(); ++k) {
        classes_.push_back(c);
        next_slot_.push_back(k + 1 < choices.size() ? static_cast<int>(classes_.size()) : -1);
        no_offering_.emplace_back();
        packers_.emplace_back(std::in_place, c.exemplar->requests, c.self_anti_affinity,
                              choices[k].usable, catalog_);
        usable_.push_back(std::move(choices[k].usable));
      }
    }
    admitted_.assign(classes_.size(), {});
    cursors_.assign(classes_.size(), {});
  }

  NoOfferingReason no_offering(const PodClass& c, const planner::OfferingChoice& choice) const {
    if (choice.fits_somewhere())
      return {UnschedulableKind::CapacityBackoff, planner::backoff_reason(choice, catalog_)};
    if (pools_.limited() && all_zone_offerings_.size() != zone_offerings_.size()) {
      // Offerings that would take it are in pools at their limits: it waits for room.
      const planner::OfferingChoice full =
          planner::choose_offerings(c, catalog_, policy_, all_zone_offerings_);
      if (!full.usable.empty()) {
        const auto why = pools_.refuse_at(full.usable.front(),
                                          planner::charge_of(catalog_, full.usable.front(), 1));
        return {UnschedulableKind::BudgetWait, why ? *why : "its pools are at their limits"};
      }
    }
    return {UnschedulableKind::NoOffering,
            planner::no_offering_reason(c, catalog_, all_zone_offerings_)};
  }

  // Whether a job of this worst case may run in offering `o`: anywhere but in a reservation
  // that ends before it would (model/reservation.h); else why not.
  std::optional<std::string> outlives(const Offering& o, std::optional<Seconds> worst_case) const {
    if (!o.reservation) return std::nullopt;
    const Reservation& r = catalog_.reservations[*o.reservation];
    if (fits_before_end(r, worst_case, now_)) return std::nullopt;
    return "reservation " + r.id + " ends at " + format_rfc3339(*r.end) +
           "; the job's worst case " +
           (worst_case ? "of " + format_duration(*worst_case) + " would outlive it"
                       : "is unbounded (no activeDeadlineSeconds, fitscale.io/max-runtime or "
                         "budget maxRuntime)");
  }

  // Moves the class entry `e` (pods to launch for one job) to the first slot whose pool's
  // limits (and reservation's room and end) take them, charging it; false (nothing charged)
  // when none does. Charges are booked by an offering of the slot (PoolBook::charge_at).
  bool charge_pool(std::pair<std::size_t, std::vector<std::uint32_t>>& e,
                   const std::vector<std::int64_t>& count,
                   std::vector<std::pair<std::uint32_t, planner::PoolCharge>>& charged,
                   std::string& why, std::optional<Seconds> worst_case) {
    const auto k = static_cast<std::int64_t>(e.second.size());
    for (int s = static_cast<int>(e.first); s >= 0; s = next_slot_[static_cast<std::size_t>(s)]) {
      const auto si = static_cast<std::size_t>(s);
      const ClassPacker& pk = *packers_[si];
      const std::uint32_t at = usable_[si].front();
      if (auto refusal = outlives(catalog_.offerings[at], worst_case)) {
        if (why.empty()) why = *refusal;
        continue;
      }
      planner::PoolCharge add = planner::charge_of(catalog_, pk, count[si] + k);
      add -= planner::charge_of(catalog_, pk, count[si]);
      if (auto refusal = pools_.refuse_at(at, add)) {
        if (why.empty()) why = *refusal;
        continue;
      }
      pools_.charge_at(at, add);
      charged.emplace_back(at, add);
      e.first = si;
      return true;
    }
    return false;
  }

  void uncharge(std::vector<std::pair<std::uint32_t, planner::PoolCharge>>& charged) {
    for (auto& [at, add] : charged) {
      planner::PoolCharge back;
      back -= add;
      pools_.charge_at(at, back);
    }
    charged.clear();
  }

  // The groups' charges, one per pool (booked at the pool's first offering) and one per
  // reservation (at its offering).
  void charges_by_pool(const std::vector<NewNodes>& groups,
                       std::vector<std::pair<std::uint32_t, planner::PoolCharge>>& out) const {
    for (const NewNodes& g : groups) {
      const Offering& o = catalog_.offerings[g.offering];
      auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) {
        const Offering& at = catalog_.offerings[e.first];
        return is_reserved(o) ? e.first == g.offering
                              : !is_reserved(at) && at.pool_index == o.pool_index;
      });
      if (it == out.end()) it = out.insert(out.end(), {g.offering, {}});
      it->second += planner::charge_of(catalog_, g.offering, g.count);
    }
  }

  // A gang's plan within its pools' limits and its reservations' room: pools and reservations
  // that refuse it are left out, one at a time.
  planner::GangPlan pack_gang_in_pools(
      const std::string& name, const std::vector<PodClass>& members,
      std::vector<std::pair<std::uint32_t, planner::PoolCharge>>& charged,
      std::optional<Seconds> worst_case) {
    std::vector<std::uint32_t> candidates = zone_offerings_;
    std::string why;
    std::erase_if(candidates, [&](std::uint32_t i) {
      auto refusal = outlives(catalog_.offerings[i], worst_case);
      if (refusal && why.empty()) why = *refusal;
      return refusal.has_value();
    });
    for (;;) {
      planner::GangPlan g = planner::pack_gang(name, members, catalog_, policy_, candidates);
      if (!g.ok || !pools_.limited()) {
        if (!g.ok && !why.empty()) {
          g.kind = UnschedulableKind::BudgetWait;
          g.reason = "gang " + name + ": " + why;
        }
        return g;
      }
      std::vector<std::pair<std::uint32_t, planner::PoolCharge>> by_pool;
      charges_by_pool(g.groups, by_pool);
      std::optional<std::uint32_t> refused;
      for (const auto& [at, add] : by_pool) {
        if (auto r = pools_.refuse_at(at, add)) {
          if (why.empty()) why = *r;
          refused = at;
          break;
        }
      }
      if (!refused) {
        for (const auto& [at, add] : by_pool) pools_.charge_at(at, add);
        charged = std::move(by_pool);
        return g;
      }
      // A full reservation is left out alone; a pool at its limits, whole.
      const Offering& no = catalog_.offerings[*refused];
      std::erase_if(candidates, [&](std::uint32_t i) {
        return is_reserved(no) ? i == *refused : catalog_.offerings[i].pool_index == no.pool_index;
      });
    }
  }

  // A job's worst-case runtime as its budget counts it (the longest its pods declare, else its
  // namespace's maxRuntime); read only when a reservation ends, the one thing here that asks.
  std::optional<Seconds> worst_case_of(const Job& j) const {
    if (!reservations_end_) return std::nullopt;
    std::optional<Seconds> worst;
    for (std::uint32_t pi : j.pods) {
      try {
        const auto r = s_.pods[pi].declared_max_runtime();
        if (r && (!worst || *r > *worst)) worst = r;
      } catch (const InputError&) {
        return std::nullopt;  // reported by admission; unbounded here
      }
    }
    if (!worst) worst = policy_.budgets.for_namespace(std::string(j.ns)).max_runtime;
    return worst;
  }

  void admit_jobs() {
    std::vector<Job> jobs;
    std::unordered_map<std::string, std::size_t> index;
    jobs.reserve(lone_.size() + gangs_.size());
    auto job_for = [&](const Pod& p) -> Job& {
      std::string id = p.ns + "/" + p.job_key();
      auto [it, fresh] = index.try_emplace(std::move(id), jobs.size());
      if (fresh) {
        // The map's key is "ns/job" and outlives the loop: the job key is its tail.
        jobs.push_back({p.ns,
                        std::string_view(it->first).substr(p.ns.size() + 1),
                        p.created,
                        p.priority,
                        {},
                        -1});
      }
      return jobs[it->second];
    };
    for (std::uint32_t pi : lone_) {
      const Pod& p = s_.pods[pi];
      if (p.owner.kind != "Job" && p.labels.find(label::kJob) == p.labels.end()) {
        // A pod of no Job is a job of its own (pod names are unique in a namespace): no lookup.
        jobs.push_back({p.ns, p.name, p.created, p.priority, {pi}, -1});
        continue;
      }
      Job& j = job_for(p);
      j.pods.push_back(pi);
      j.created = std::min(j.created, p.created);
      j.priority = std::max(j.priority, p.priority);
    }
    for (std::size_t gi = 0; gi < gangs_.size(); ++gi) {
      const GangGroup& g = gangs_[gi];
      if (g.pending.empty()) continue;
      Job j{g.ns,
            g.name,
            s_.pods[g.pending.front()].created,
            s_.pods[g.pending.front()].priority,
            g.pending,
            static_cast<int>(gi)};
      for (std::uint32_t pi : g.pending) {
        j.created = std::min(j.created, s_.pods[pi].created);
        j.priority = std::max(j.priority, s_.pods[pi].priority);
      }
      jobs.push_back(std::move(j));
    }
    // Scheduling order (priority, then oldest first), so a later job never takes the room or
    // the budget an earlier one was waiting for.
    auto before = [](const Job& a, const Job& b) {
      if (a.priority != b.priority) return a.priority > b.priority;
      if (a.created != b.created) return a.created < b.created;
      if (a.ns != b.ns) return a.ns < b.ns;
      return a.key < b.key;
    };
    // Lone pods arrive in scheduling order, so the jobs are often sorted already.
    if (!std::is_sorted(jobs.begin(), jobs.end(), before))
      std::sort(jobs.begin(), jobs.end(), before);

    const bool budgets = policy_.enforce_budgets;
    // Built at the first job that asks: it walks every node, and most plans admit no job.
    std::optional<planner::BudgetBook>& book = book_;
    std::vector<std::int64_t> count(classes_.size(), 0);
    std::vector<std::pair<std::size_t, std::vector<std::uint32_t>>> per_class;  // pods to launch
    std::vector<planner::Placement> done;  // the job's pods on existing and in-flight nodes
    std::vector<std::uint32_t> job_pods;   // the job's pods that asked (placed or to launch)
    std::vector<std::pair<std::uint32_t, planner::PoolCharge>> pool_charged;  // by the job
    // A pod held by the budget gate that is admitted onto existing room is released to the
    // scheduler, which may bind it to any Ready node it fits, not the one planned: it is charged
    // the dearest of those (issue 12; ExistingCapacity::dearest_binding), once per class.
    std::vector<std::optional<Micros>> class_dearest(classes_.size());
    std::vector<std::pair<std::uint32_t, Micros>> gang_dearest;  // the gang's, by pod
    auto released_charge = [&](std::uint32_t pi) -> Micros {
      if (!budgets || !s_.pods[pi].held_by_budget_gate()) return 0;
      if (pod_class_[pi] < 0) {
        for (const auto& [pod, m] : gang_dearest) {
          if (pod == pi) return m;
        }
        return 0;
      }
      std::optional<Micros>& m = class_dearest[static_cast<std::size_t>(pod_class_[pi])];
      if (!m) m = existing_->dearest_binding(classes_[static_cast<std::size_t>(pod_class_[pi])]);
      return *m;
    };
    for (const Job& j : jobs) {
      planner::JobAsk ask;
      ask.ns = j.ns;
      ask.job = j.key;
      ask.counts_after_packing = j.gang < 0;
      per_class.clear();
      done.clear();
      job_pods.clear();
      pool_charged.clear();
      std::optional<std::string> bad_runtime;
      for (std::uint32_t pi : j.pods) {
        if (!budgets) break;  // only admission reads runtimes
        try {
          const auto r = s_.pods[pi].declared_max_runtime();
          if (r && (!ask.declared_runtime || *r > *ask.declared_runtime)) ask.declared_runtime = r;
        } catch (const InputError& e) {
          bad_runtime = e.what();
        }
      }
      if (bad_runtime) {
        for (std::uint32_t pi : j.pods)
          unschedulable(pi, UnschedulableKind::NoOffering, *bad_runtime);
        continue;
      }
      const std::optional<Seconds> worst_case = worst_case_of(j);
      std::optional<planner::GangPlan> gang_plan;
      gang_dearest.clear();
      if (j.gang >= 0) {
        const GangGroup& g = gangs_[static_cast<std::size_t>(j.gang)];
        // A gang restarts when any of its nodes is taken back: its pods' hazards add up.
        auto members = planner::split_by_expected_loss(
            planner::build_classes(s_.pods, g.pending, catalog_.gpu_models), s_.pods, catalog_,
            all_zone_offerings_, g.size);
        if (budgets && existing_->has_nodes()) {
          for (const PodClass& c : members) {
            if (!c.exemplar->held_by_budget_gate()) continue;
            const Micros m = existing_->dearest_binding(c);
            for (std::uint32_t pi : c.pods) gang_dearest.emplace_back(pi, m);
          }
        }
        if (!existing_->place_gang(members, out_.placements, &done)) {
          gang_plan = pack_gang_in_pools(g.name, members, pool_charged, worst_case);
          if (!gang_plan->ok) {
            for (std::uint32_t pi : j.pods) unschedulable(pi, gang_plan->kind, gang_plan->reason);
            continue;
          }
          ask.micros_per_hour = gang_plan->micros_per_hour;
          ask.gpus = gang_plan->gpus;
          ask.nodes = gang_plan->nodes;
        }
        job_pods = j.pods;
      } else {
        for (std::uint32_t pi : j.pods) {
          const auto ci = static_cast<std::size_t>(pod_class_[pi]);
          auto it = std::find_if(per_class.begin(), per_class.end(),
                                 [ci](const auto& e) { return e.first == ci; });
          if (it == per_class.end()) it = per_class.insert(per_class.end(), {ci, {}});
          it->second.push_back(pi);
        }
        for (auto& [ci, pods] : per_class) {
          if (existing_->has_nodes()) {
            const std::size_t before_placing = done.size();
            pods = existing_->place_pods(classes_[ci], pods, cursors_[ci], out_.placements, done);
            for (std::size_t k = before_placing; k < done.size(); ++k)
              job_pods.push_back(done[k].pod);
          }
          if (!packers_[ci]) {
            // No offering can take them: what did not fit on existing nodes stays pending.
            for (std::uint32_t pi : pods)
              unschedulable(pi, no_offering_[ci].kind, no_offering_[ci].reason);
            pods.clear();
          }
          job_pods.insert(job_pods.end(), pods.begin(), pods.end());
        }
        if (pools_.limited()) {
          std::string why;
          bool refused = false;
          for (auto& e : per_class) {
            if (!e.second.empty() && !charge_pool(e, count, pool_charged, why, worst_case))
              refused = true;
          }
          if (refused) {
            // The job's new nodes fit no pool's limits: all of it waits (limits are charged
            // for whole jobs), what it was placed on is free again.
            uncharge(pool_charged);
            existing_->undo(done, out_.placements);
            for (const planner::Placement& pl : done) {
              if (pod_class_[pl.pod] >= 0)
                planner::ExistingCapacity::rewind(
                    cursors_[static_cast<std::size_t>(pod_class_[pl.pod])], pl);
            }
            for (std::uint32_t pi : job_pods) unschedulable(pi, UnschedulableKind::BudgetWait, why);
            continue;
          }
        }
        // The job's marginal launch: what the classes' packings cost with it minus without it,
        // so the sum over admitted jobs is exactly what the plan launches.
        for (const auto& [ci, pods] : per_class) {
          if (pods.empty()) continue;
          const ClassPacker& pk = *packers_[ci];
          const auto k = static_cast<std::int64_t>(pods.size());
          ask.micros_per_hour += std::max<Micros>(0, pk.cost(count[ci] + k) - pk.cost(count[ci]));
          ask.gpus += std::max<std::int64_t>(0, pk.gpus(count[ci] + k) - pk.gpus(count[ci]));
          ask.nodes += std::max<std::int64_t>(0, pk.nodes(count[ci] + k) - pk.nodes(count[ci]));
        }
      }
      if (job_pods.empty()) continue;
      for (const planner::Placement& pl : done) {
        ask.existing_micros_per_hour += std::max(pl.micros_per_hour, released_charge(pl.pod));
      }
      if (budgets) {
        if (!book) book.emplace(s_, policy_, now_);
        if (auto refusal = book->admit(ask)) {
          uncharge(pool_charged);
          // A job that may not start takes no room: what it was placed on is free again for
          // the jobs after it (and for the job it was launched for).
          existing_->undo(done, out_.placements);
          for (const planner::Placement& pl : done) {
            if (pod_class_[pl.pod] >= 0)
              planner::ExistingCapacity::rewind(
                  cursors_[static_cast<std::size_t>(pod_class_[pl.pod])], pl);
          }
          for (std::uint32_t pi : job_pods) unschedulable(pi, refusal->kind, refusal->reason);
          continue;
        }
      }
      if (gang_plan) {
        gang_launches_.push_back(
            {std::string(j.ns), std::string(j.key), std::move(gang_plan->groups)});
      } else {
        AdmittedJob a{j.ns, {}};
        for (const auto& [ci, pods] : per_class) {
          if (pods.empty()) continue;
          count[ci] += static_cast<std::int64_t>(pods.size());
          admitted_[ci].insert(admitted_[ci].end(), pods.begin(), pods.end());
          a.per_class.emplace_back(ci, pods);
        }
        if (!a.per_class.empty()) admitted_jobs_.push_back(std::move(a));
      }
    }
  }

  // What new nodes add to the cluster's counts and bills.
  struct NewCounts {
    std::int64_t nodes = 0;
    std::int64_t gpus = 0;
    Micros micros_per_hour = 0;
    std::map<std::string_view, Micros, std::less<>> by_ns;
  };
  NewCounts count_new(const std::vector<planner::MixedGroup>& groups) const {
    NewCounts c;
    auto add = [&](const planner::NewNodes& g, std::string_view ns) {
      const Offering& o = catalog_.offerings[g.offering];
      c.nodes += g.count;
      c.gpus += g.count * o.allocatable.gpus;
      c.micros_per_hour += g.count * o.micros_per_hour;
      c.by_ns[ns] += g.count * o.micros_per_hour;
    };
    for (const planner::MixedGroup& g : groups) add(g.nodes, s_.pods[g.nodes.pods.front()].ns);
    // Gangs' nodes are in the book's counts already; their price is part of the bill.
    for (const GangLaunch& gl : gang_launches_) {
      for (const planner::NewNodes& g : gl.groups) {
        const Micros m = g.count * catalog_.offerings[g.offering].micros_per_hour;
        c.micros_per_hour += m;
        c.by_ns[gl.ns] += m;
      }
    }
    return c;
  }

  // Which cap the new nodes break, or "" when they fit them all.
  std::string broken_cap(const NewCounts& c) const {
    const planner::BudgetBook& book = *book_;
    const ClusterBudget& cb = policy_.budgets.cluster;
    if (auto left = book.nodes_left(); left && c.nodes > *left)
      return "cluster: the plan's new nodes reach the cluster's nodes cap of " +
             format_count(*cb.nodes) + "; the job waits for nodes to free up";
    if (auto left = book.gpus_left(); left && c.gpus > *left)
      return "cluster: the plan's new nodes reach the cluster's gpus cap of " +
             format_count(*cb.gpus) + "; the job waits for GPUs to free up";
    if (auto room = book.cluster_new_room_per_hour(); room && c.micros_per_hour > *room)
      return "cluster: the plan's new nodes, packed to fit the count caps, reach the cluster's "
             "usdPerHour cap of " +
             planner::usd_per_hour(dollars_to_micros(*cb.usd_per_hour)) +
             "; the job waits for it to free up";
    for (const auto& [ns, m] : c.by_ns) {
      if (auto room = book.new_room_per_hour(ns); room && m > *room)
        return "namespace " + std::string(ns) +
               ": its new nodes, packed to fit the cluster's count caps, reach its usdPerHour "
               "cap; the job waits for it to free up";
    }
    return {};
  }

  std::vector<std::optional<ClassPacker>> packers_with(Micros penalty) const {
    std::vector<std::optional<ClassPacker>> out(classes_.size());
    for (std::size_t ci = 0; ci < classes_.size(); ++ci) {
      if (admitted_[ci].empty() || !packers_[ci]) continue;
      const PodClass& c = classes_[ci];
      out[ci].emplace(c.exemplar->requests, c.self_anti_affinity, usable_[ci], catalog_,
                      planner::PriceTies::SmallerNodes, penalty);
    }
    return out;
  }

  // Issue 12, "caps shape packing": node and GPU counts of lone jobs' new nodes are charged
  // after packing, for the whole plan at once. When they would break a cap, a penalty per node
  // trades smaller nodes for fewer larger ones, the least penalty that fits (so the least extra
  // price); when even the fewest nodes do not fit, the newest jobs wait.
  void fit_count_caps() {
    mixed_ = planner::pack_mixed(classes_, packers_, admitted_, catalog_);
    if (!book_ || admitted_jobs_.empty()) return;
    const planner::BudgetBook& book = *book_;
    if (!book.nodes_left() && !book.gpus_left()) return;
    NewCounts c = count_new(mixed_);
    {
      const auto nodes_left = book.nodes_left();
      const auto gpus_left = book.gpus_left();
      if ((!nodes_left || c.nodes <= *nodes_left) && (!gpus_left || c.gpus <= *gpus_left)) return;
    }
    Micros max_price = 1;
    for (std::size_t ci = 0; ci < classes_.size(); ++ci) {
      if (admitted_[ci].empty()) continue;
      for (std::uint32_t o : usable_[ci])
        max_price = std::max(max_price, catalog_.offerings[o].micros_per_hour);
    }
    // Large enough that the count of pods per node decides alone, price only breaking ties.
    const Micros most = max_price * 1000;
    // A ladder of penalties, from none to one where the count of pods per node decides alone.
    // Each class climbs it on its own, the move that saves a node for the least extra price
    // first (estimated from the class's own packing), so a class whose small nodes are a
    // bargain keeps them while others take larger ones; the packing is checked as it goes.
    std::vector<Micros> ladder{0};
    for (Micros p = std::max<Micros>(1, max_price / 256); p < most; p *= 2) ladder.push_back(p);
    ladder.push_back(most);
    std::vector<std::vector<std::optional<ClassPacker>>> at;  // [level][class]
    at.reserve(ladder.size());
    for (Micros p : ladder) at.push_back(packers_with(p));
    std::vector<std::size_t> level(classes_.size(), 0);
    auto est_nodes = [&](std::size_t l, std::size_t ci) {
      return at[l][ci]->nodes(static_cast<std::int64_t>(admitted_[ci].size()));
    };
    auto est_cost = [&](std::size_t l, std::size_t ci) {
      return at[l][ci]->cost(static_cast<std::int64_t>(admitted_[ci].size()));
    };
    std::int64_t estimate = 0;
    for (std::size_t ci = 0; ci < classes_.size(); ++ci) {
      if (at[0][ci]) estimate += est_nodes(0, ci);
    }
    const std::optional<std::int64_t> nodes_cap = book.nodes_left();
    // The packing with every class at its level, and `split` pods of class `moved` (its last
    // ones) one level up at `up`: the last move is made for as few pods as fit the caps.
    auto pack_at = [&](std::size_t moved, std::size_t up, std::size_t split) {
      std::vector<PodClass> classes = classes_;
      std::vector<std::optional<ClassPacker>> current(classes_.size());
      for (std::size_t ci = 0; ci < classes_.size(); ++ci) current[ci] = at[level[ci]][ci];
      std::vector<std::vector<std::uint32_t>> admitted = admitted_;
      if (split > 0) {
        const std::vector<std::uint32_t>& all = admitted_[moved];
        const auto keep = static_cast<std::ptrdiff_t>(all.size() - split);
        classes.push_back(classes_[moved]);
        current.push_back(at[up][moved]);
        admitted.emplace_back(all.begin() + keep, all.end());
        admitted[moved].assign(all.begin(), all.begin() + keep);
      }
      return planner::pack_mixed(classes, current, admitted, catalog_);
    };
    for (;;) {
      std::size_t best_class = classes_.size();
      std::size_t best_level = 0;
      double best_ratio = 0;
      for (std::size_t ci = 0; ci < classes_.size(); ++ci) {
        if (!at[0][ci]) continue;
        for (std::size_t l = level[ci] + 1; l < ladder.size(); ++l) {
          const std::int64_t saved = est_nodes(level[ci], ci) - est_nodes(l, ci);
          if (saved <= 0) continue;
          const double ratio = static_cast<double>(est_cost(l, ci) - est_cost(level[ci], ci)) /
                               static_cast<double>(saved);
          if (best_class == classes_.size() || ratio < best_ratio) {
            best_class = ci;
            best_level = l;
            best_ratio = ratio;
          }
        }
      }
      if (best_class == classes_.size()) break;  // every class on its fewest nodes
      estimate -= est_nodes(level[best_class], best_class) - est_nodes(best_level, best_class);
      // Backfill puts some pods on others' nodes, so the packing needs fewer nodes than the
      // classes' own: check it once the estimate is near the cap (and always for other caps).
      if (nodes_cap && estimate > *nodes_cap * 4) {
        level[best_class] = best_level;
        continue;
      }
      const std::size_t n = admitted_[best_class].size();
      std::vector<planner::MixedGroup> groups = pack_at(best_class, best_level, n);
      if (!broken_cap(count_new(groups)).empty()) {
        level[best_class] = best_level;
        continue;
      }
      // The whole move fits: move as few of the class's pods as fit (fits is monotone enough
      // in the count moved: each pod moved up saves nodes).
      std::size_t lo = 0;  // does not fit
      std::size_t hi = n;  // fits
      while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        std::vector<planner::MixedGroup> g = pack_at(best_class, best_level, mid);
        if (broken_cap(count_new(g)).empty()) {
          hi = mid;
          groups = std::move(g);
        } else {
          lo = mid;
        }
      }
      mixed_ = std::move(groups);
      return;
    }
    // Even the fewest nodes break a cap: keep the oldest jobs that fit, the rest wait.
    keep_oldest_jobs_that_fit(packers_with(most), [&](const std::vector<planner::MixedGroup>& g) {
      return broken_cap(count_new(g));
    });
  }

  // The newest lone jobs wait until the packing of the others with `packers` breaks no cap
  // (`broken` names the cap a packing breaks, empty when none): the largest prefix of
  // admitted_jobs_ that fits is packed into mixed_, the rest get BudgetWait with the reason the
  // first of them broke. Returns the length of that prefix.
  template <class Broken>
  std::size_t keep_oldest_jobs_that_fit(const std::vector<std::optional<ClassPacker>>& packers,
                                        const Broken& broken) {
    auto keep_first = [&](std::size_t k) {
      for (auto& a : admitted_) a.clear();
      for (std::size_t i = 0; i < k; ++i) {
        for (const auto& [ci, pods] : admitted_jobs_[i].per_class)
          admitted_[ci].insert(admitted_[ci].end(), pods.begin(), pods.end());
      }
      return planner::pack_mixed(classes_, packers, admitted_, catalog_);
    };
    std::size_t good = 0;
    std::size_t bad = admitted_jobs_.size();  // known not to fit
    while (bad - good > 1) {
      const std::size_t mid = good + (bad - good) / 2;
      if (broken(keep_first(mid)).empty())
        good = mid;
      else
        bad = mid;
    }
    const std::string reason = broken(keep_first(good + 1));
    mixed_ = keep_first(good);
    for (std::size_t i = good; i < admitted_jobs_.size(); ++i) {
      for (const auto& [ci, pods] : admitted_jobs_[i].per_class) {
        for (std::uint32_t pi : pods) unschedulable(pi, UnschedulableKind::BudgetWait, reason);
      }
    }
    return good;
  }

  // What the lone pods' new nodes commit each namespace and job to, as the ledger may charge
  // them: the pod leading a group (the launch's owner) its namespace and job for all of the
  // group's nodes, every other pod its namespace and job for its dominant share.
  std::pair<std::map<std::string, Micros, std::less<>>, std::map<std::string, Micros, std::less<>>>
  commitments(const std::vector<planner::MixedGroup>& groups) const {
    std::map<std::string, Micros, std::less<>> by_ns, by_job;
    for (const planner::MixedGroup& g : groups) {
      const Offering& o = catalog_.offerings[g.nodes.offering];
      const Pod& lead = s_.pods[g.nodes.pods.front()];
      const std::string lead_job = lead.ns + "/" + lead.job_key();
      by_ns[lead.ns] += g.nodes.count * o.micros_per_hour;
      by_job[lead_job] += g.nodes.count * o.micros_per_hour;
      for (std::uint32_t pi : g.nodes.pods) {
        const Pod& p = s_.pods[pi];
        const Micros part = share_of(
            o.micros_per_hour, fitscale::dominant_share(p.requests, o.allocatable), kWholeNode);
        if (p.ns != lead.ns) by_ns[p.ns] += part;
        const std::string job = p.ns + "/" + p.job_key();
        if (job != lead_job) by_job[job] += part;
      }
    }
    return {std::move(by_ns), std::move(by_job)};
  }

  // Issue 12: the budgets admitted each lone job at its marginal price in its own class's
  // packing; the final packing of the plan must still be within every namespace's and job's
  // dollar caps. When it is not, the newest jobs wait, as for the count caps.
  void fit_budget_caps() {
    if (!book_ || admitted_jobs_.empty()) return;
    auto broken = [&](const std::vector<planner::MixedGroup>& groups) {
      auto [by_ns, by_job] = commitments(groups);
      std::string why = book_->after_packing(by_ns, by_job);
      if (why.empty()) why = broken_cap(count_new(groups));
      return why;
    };
    if (broken(mixed_).empty()) return;
    admitted_jobs_.resize(keep_oldest_jobs_that_fit(packers_, broken));
  }

  void add_launch(const NewNodes& g, const std::string& ns, const std::string& job, bool separate) {
    const Offering& o = catalog_.offerings[g.offering];
    LaunchKey key{g.offering, ns, separate ? job : std::string()};
    auto it = std::find(launch_keys_.begin(), launch_keys_.end(), key);
    LaunchDecision* d = nullptr;
    if (it == launch_keys_.end()) {
      launch_keys_.push_back(key);
      out_.launch.push_back({});
      d = &out_.launch.back();
      d->instance_type = o.instance_type;
      d->zone = o.zone;
      d->capacity_type = o.capacity_type;
      d->usd_per_hour = o.usd_per_hour;
      d->owner_namespace = ns;
      d->job = job;
      d->offering_index = g.offering;
      d->all_or_nothing = separate;  // a gang's
      if (o.pool_index < catalog_.pools.size()) d->pool = catalog_.pools[o.pool_index].name;
    } else {
      d = &out_.launch[static_cast<std::size_t>(it - launch_keys_.begin())];
    }
    d->count += static_cast<int>(g.count);
    d->pods.reserve(d->pods.size() + g.pods.size());
    for (std::uint32_t pi : g.pods) d->pods.push_back(s_.pods[pi].key());
    out_.usd_per_hour += o.usd_per_hour * static_cast<double>(g.count);
  }

  void emit_launches() {
    for (const auto& gl : gang_launches_) {
      for (const NewNodes& g : gl.groups) add_launch(g, gl.ns, gl.job, true);
    }
    for (const planner::MixedGroup& g : mixed_) {
      const Pod& first = s_.pods[g.nodes.pods.front()];
      add_launch(g.nodes, first.ns, first.job_key(), false);
    }
  }

  struct GangLaunch {
    std::string ns;
    std::string job;
    std::vector<NewNodes> groups;
  };

  const Snapshot& s_;
  const Catalog& catalog_;
  const Policy& policy_;
  Time now_;
  std::optional<planner::ExistingCapacity> existing_;  // built only when pods are pending
  Plan out_;
  std::vector<std::uint32_t> pending_;
  std::vector<std::uint32_t> lone_;
  std::vector<GangGroup> gangs_;
  std::vector<std::uint32_t> zone_offerings_;      // in the zones, in pools with room
  std::vector<std::uint32_t> all_zone_offerings_;  // in the zones
  planner::PoolBook pools_;
  bool reservations_end_ = false;  // some reservation ends: jobs' worst cases are read
  std::vector<int> next_slot_;     // per slot, the class's slot in its next pool, or -1
  std::vector<PodClass> classes_;
  std::vector<std::optional<ClassPacker>> packers_;
  std::vector<int> pod_class_;
  std::vector<std::vector<std::uint32_t>> admitted_;
  std::vector<NoOfferingReason> no_offering_;
  std::vector<planner::ClassCursor> cursors_;       // per class, its view of the existing nodes
  std::vector<std::vector<std::uint32_t>> usable_;  // per class, the offerings it may launch
  std::optional<planner::BudgetBook> book_;
  // Lone jobs admitted to new nodes, in admission order, with their pods per class.
  struct AdmittedJob {
    std::string_view ns;
    std::vector<std::pair<std::size_t, std::vector<std::uint32_t>>> per_class;
  };
  std::vector<AdmittedJob> admitted_jobs_;
  std::vector<planner::MixedGroup> mixed_;  // the lone pods' new nodes
  std::vector<GangLaunch> gang_launches_;
  std::vector<LaunchKey> launch_keys_;
};

}  // namespace

Plan plan(const Snapshot& snapshot, const Catalog& catalog, const Policy& policy, Time now) {
  // Topology constraints become node-label requirements first (planner/topology.h); the
  // planner then sees only those.
  if (auto resolved = planner::resolve_topology(snapshot, catalog, policy)) {
    Plan out = Planner(resolved->snapshot, catalog, policy, now).run();
    out.unschedulable.insert(out.unschedulable.end(),
                             std::make_move_iterator(resolved->refused.begin()),
                             std::make_move_iterator(resolved->refused.end()));
    return out;
  }
  return Planner(snapshot, catalog, policy, now).run();
}

}  // namespace fitscale
