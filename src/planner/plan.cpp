// plan(): the order of decisions. Each step lives in its own file; this one only sequences them:
// pending pods -> existing and in-flight capacity -> classes and offerings -> jobs admitted
// against budgets, oldest first -> launches grouped by offering -> scale-down.
#include "planner/plan.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "model/error.h"
#include "planner/admission.h"
#include "planner/backfill.h"
#include "planner/gangs.h"
#include "planner/offering_choice.h"
#include "planner/packing.h"
#include "planner/placement.h"
#include "planner/pod_class.h"
#include "planner/reasons.h"
#include "planner/scale_down.h"

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
};

// One budget unit: a gang, or the pending pods of one Job (or one bare pod).
struct Job {
  std::string_view ns;   // into the snapshot's pods
  std::string_view key;  // Pod::job_key(): into a pod's name or the planner's key store
  Time created = 0;
  std::vector<std::uint32_t> pods;
  int gang = -1;  // index into the gang plans, or -1
};

struct LaunchKey {
  std::uint32_t offering;
  std::string ns;
  std::string job;  // set for a gang's launches, which must stay apart
  bool operator==(const LaunchKey&) const = default;
};

class Planner {
 public:
  Planner(const Snapshot& s, const Catalog& c, const Policy& p, Time now)
      : s_(s), catalog_(c), policy_(p), now_(now) {}

  Plan run() {
    collect_pending();
    // Placement, pricing, admission and launches only serve pending pods: a plan with none (in
    // the simulator, most plans after a job ends) would index every node and its pods, and the
    // catalog's offerings, for nothing.
    if (!pending_.empty()) {
      existing_.emplace(s_, policy_, now_, catalog_.gpu_models);
      place_gangs_on_existing();
      place_lone_on_existing();
      price_lone_classes();
      admit_jobs();
      emit_launches();
    }
    auto room = [this]() -> planner::ExistingCapacity& {
      if (!existing_) existing_.emplace(s_, policy_, now_, catalog_.gpu_models);
      return *existing_;
    };
    planner::ScaleDown down = planner::choose_removals(
        s_, policy_, now_, existing_ ? existing_->used_nodes() : std::vector<std::string_view>{},
        room);
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
      if (p.unschedulable()) keys.push_back({p.priority, p.created, i, p.gang.has_value()});
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
      if (fresh) gangs_.push_back({p.ns, p.gang->name, p.gang->size, 0, {}});
      gangs_[it->second].pending.push_back(i);
      gangs_[it->second].size = std::max(gangs_[it->second].size, p.gang->size);
    }
    if (gangs_.empty()) return;
    for (const Pod& p : s_.pods) {
      if (!p.gang || !p.holds_resources()) continue;
      auto it = gang_index.find({p.ns, p.gang->name});
      if (it != gang_index.end()) ++gangs_[it->second].running;
    }
  }

  void place_gangs_on_existing() {
    for (GangGroup& g : gangs_) {
      const auto have = static_cast<std::int64_t>(g.pending.size()) + g.running;
      if (have < g.size) {
        const std::string reason = "gang " + g.name + " has " + format_count(have) + " of " +
                                   format_count(g.size) + " pods; it starts only when all exist";
        for (std::uint32_t pi : g.pending)
          unschedulable(pi, UnschedulableKind::GangIncomplete, reason);
        g.pending.clear();
        continue;
      }
      auto members = planner::build_classes(s_.pods, g.pending, catalog_.gpu_models);
      if (existing_->place_gang(members, out_.placements)) g.pending.clear();
    }
  }

  void place_lone_on_existing() {
    if (!existing_ || !existing_->has_nodes()) return;
    auto classes = planner::build_classes(s_.pods, lone_, catalog_.gpu_models);
    std::vector<std::uint32_t> left;
    for (const PodClass& c : classes) {
      for (std::uint32_t pi : existing_->place_class(c, out_.placements)) left.push_back(pi);
    }
    // Keep scheduling order for the next steps.
    std::vector<std::uint32_t> rank(s_.pods.size(), 0);
    for (std::size_t i = 0; i < lone_.size(); ++i) rank[lone_[i]] = static_cast<std::uint32_t>(i);
    std::sort(left.begin(), left.end(),
              [&](std::uint32_t a, std::uint32_t b) { return rank[a] < rank[b]; });
    lone_ = std::move(left);
  }

  void price_lone_classes() {
    zone_offerings_ = planner::offerings_in_zones(catalog_, policy_);
    classes_ = planner::build_classes(s_.pods, lone_, catalog_.gpu_models);
    pod_class_.assign(s_.pods.size(), -1);
    for (std::size_t ci = 0; ci < classes_.size(); ++ci) {
      const PodClass& c = classes_[ci];
      const planner::OfferingChoice choice =
          planner::choose_offerings(c, catalog_, policy_, zone_offerings_);
      if (choice.usable.empty()) {
        const bool backoff = choice.fits_somewhere();
        const std::string reason = backoff
                                       ? planner::backoff_reason(choice, catalog_)
                                       : planner::no_offering_reason(c, catalog_, zone_offerings_);
        for (std::uint32_t pi : c.pods) {
          unschedulable(
              pi, backoff ? UnschedulableKind::CapacityBackoff : UnschedulableKind::NoOffering,
              reason);
        }
        packers_.emplace_back(std::nullopt);
        continue;
      }
      packers_.emplace_back(std::in_place, c.exemplar->requests, c.self_anti_affinity,
                            choice.usable, catalog_);
      for (std::uint32_t pi : c.pods) pod_class_[pi] = static_cast<int>(ci);
    }
    admitted_.assign(classes_.size(), {});
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
        jobs.push_back(
            {p.ns, std::string_view(it->first).substr(p.ns.size() + 1), p.created, {}, -1});
      }
      return jobs[it->second];
    };
    const bool budgets = policy_.enforce_budgets;
    if (!budgets) {
      // Without admission no job needs pricing: every servable lone pod is admitted as is.
      for (std::uint32_t pi : lone_) {
        if (pod_class_[pi] >= 0) admitted_[static_cast<std::size_t>(pod_class_[pi])].push_back(pi);
      }
    }
    for (std::uint32_t pi : lone_) {
      if (!budgets) break;
      if (pod_class_[pi] < 0) continue;  // already unschedulable
      const Pod& p = s_.pods[pi];
      if (p.owner.kind != "Job" && p.labels.find(label::kJob) == p.labels.end()) {
        // A pod of no Job is a job of its own (pod names are unique in a namespace): no lookup.
        jobs.push_back({p.ns, p.name, p.created, {pi}, -1});
        continue;
      }
      Job& j = job_for(p);
      j.pods.push_back(pi);
      j.created = std::min(j.created, p.created);
    }
    for (std::size_t gi = 0; gi < gangs_.size(); ++gi) {
      const GangGroup& g = gangs_[gi];
      if (g.pending.empty()) continue;
      Job j{g.ns, g.name, s_.pods[g.pending.front()].created, g.pending, static_cast<int>(gi)};
      for (std::uint32_t pi : g.pending) j.created = std::min(j.created, s_.pods[pi].created);
      jobs.push_back(std::move(j));
    }
    // Oldest first, so a later job never takes the budget an earlier one was waiting for.
    auto older = [](const Job& a, const Job& b) {
      if (a.created != b.created) return a.created < b.created;
      if (a.ns != b.ns) return a.ns < b.ns;
      return a.key < b.key;
    };
    // Lone pods arrive in scheduling order, so the jobs are often sorted already.
    if (!std::is_sorted(jobs.begin(), jobs.end(), older))
      std::sort(jobs.begin(), jobs.end(), older);

    // Built at the first job that asks: it walks every node, and most plans admit no job.
    std::optional<planner::BudgetBook> book;
    std::vector<std::int64_t> count(classes_.size(), 0);
    std::vector<std::pair<std::size_t, std::int64_t>> per_class;  // (class, pods of this job)
    for (const Job& j : jobs) {
      planner::JobAsk ask;
      per_class.clear();
      if (policy_.enforce_budgets) {
        ask.ns = j.ns;
        ask.job = j.key;
      }
      std::optional<std::string> bad_runtime;
      for (std::uint32_t pi : j.pods) {
        if (!policy_.enforce_budgets) break;  // only admission reads runtimes
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
      std::optional<planner::GangPlan> gang_plan;
      if (j.gang >= 0) {
        const GangGroup& g = gangs_[static_cast<std::size_t>(j.gang)];
        auto members = planner::build_classes(s_.pods, g.pending, catalog_.gpu_models);
        gang_plan = planner::pack_gang(g.name, members, catalog_, policy_, zone_offerings_);
        if (!gang_plan->ok) {
          for (std::uint32_t pi : j.pods) unschedulable(pi, gang_plan->kind, gang_plan->reason);
          continue;
        }
        ask.micros_per_hour = gang_plan->micros_per_hour;
        ask.gpus = gang_plan->gpus;
        ask.nodes = gang_plan->nodes;
      } else {
        for (std::uint32_t pi : j.pods) {
          const auto ci = static_cast<std::size_t>(pod_class_[pi]);
          auto it = std::find_if(per_class.begin(), per_class.end(),
                                 [ci](const auto& e) { return e.first == ci; });
          if (it == per_class.end())
            per_class.emplace_back(ci, 1);
          else
            ++it->second;
        }
        // The job's marginal launch: what the classes' packings cost with it minus without it,
        // so the sum over admitted jobs is exactly what the plan launches.
        for (const auto& [ci, k] : per_class) {
          const ClassPacker& pk = *packers_[ci];
          ask.micros_per_hour += std::max<Micros>(0, pk.cost(count[ci] + k) - pk.cost(count[ci]));
          ask.gpus += std::max<std::int64_t>(0, pk.gpus(count[ci] + k) - pk.gpus(count[ci]));
          ask.nodes += std::max<std::int64_t>(0, pk.nodes(count[ci] + k) - pk.nodes(count[ci]));
        }
      }
      if (policy_.enforce_budgets) {
        if (!book) book.emplace(s_, policy_, now_);
        if (auto refusal = book->admit(ask)) {
          for (std::uint32_t pi : j.pods) unschedulable(pi, refusal->kind, refusal->reason);
          continue;
        }
      }
      if (gang_plan) {
        gang_launches_.push_back(
            {std::string(j.ns), std::string(j.key), std::move(gang_plan->groups)});
      } else {
        for (const auto& [ci, k] : per_class) count[ci] += k;
        for (std::uint32_t pi : j.pods)
          admitted_[static_cast<std::size_t>(pod_class_[pi])].push_back(pi);
      }
    }
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
    for (const planner::MixedGroup& g :
         planner::pack_mixed(classes_, packers_, admitted_, catalog_)) {
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
  std::vector<std::uint32_t> zone_offerings_;
  std::vector<PodClass> classes_;
  std::vector<std::optional<ClassPacker>> packers_;
  std::vector<int> pod_class_;
  std::vector<std::vector<std::uint32_t>> admitted_;
  std::vector<GangLaunch> gang_launches_;
  std::vector<LaunchKey> launch_keys_;
};

}  // namespace

Plan plan(const Snapshot& snapshot, const Catalog& catalog, const Policy& policy, Time now) {
  return Planner(snapshot, catalog, policy, now).run();
}

}  // namespace fitscale
