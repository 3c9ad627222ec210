#include "planner/reclaim.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "model/dominant_share.h"
#include "model/taint.h"
#include "planner/capacity_type.h"
#include "planner/name_index.h"
#include "planner/pod_class.h"
#include "planner/predicates.h"

namespace fitscale::planner {

namespace {

// `reclaim_factor` (default 2) is how much dearer keeping a node open may be than sending the
// pod elsewhere, judged between the two rules below: with known runtimes the comparison is exact
// and a pod may ride when that costs at most reclaim_factor / 2 times a node of its own (break
// even by default); without them a pod that lands in the room may well be a short one riding for
// free on a node its other pods hold anyway, so the room is closed by price only when it costs
// 2 x reclaim_factor times more. On the GPU traces of bench/gpu_month_trace.py a price margin of
// 1 or 2 made the bill dearer than no reclaim at all, 4 cheaper; the runtime rule did best at
// break even (docs/PERFORMANCE.md).
constexpr double kRuleSpread = 2.0;

bool has_reclaim_taint(const Node& n) {
  return std::any_of(n.taints.begin(), n.taints.end(),
                     [](const Taint& t) { return t.key == kReclaimTaint; });
}

// The node's taints but fitscale's own reclaim taint: whether a pending pod could use the node
// once the taint is gone.
bool tolerates_all_but_reclaim(const Pod& p, const Node& n) {
  for (const Taint& t : n.taints) {
    if (t.key == kReclaimTaint || t.effect == TaintEffect::PreferNoSchedule) continue;
    if (std::none_of(p.tolerations.begin(), p.tolerations.end(),
                     [&](const Toleration& tol) { return tolerates(tol, t); }))
      return false;
  }
  return true;
}

// A node whose room reclaim may close: launched by fitscale, running, open to new pods.
bool reclaim_candidate(const Node& n) {
  return may_remove(n) && n.state == NodeState::Ready && !n.unschedulable &&
         !n.interruption_notice && !n.owner_namespace.empty();
}

struct Candidate {
  const Node* node = nullptr;
  Resources free;
  Resources used;
  bool job_live = false;
  // When its pods are expected to have left it, in seconds from now (0: none runs); nullopt
  // when one of them declares no expected runtime.
  std::optional<Seconds> left_in = Seconds{0};
};

// A launch job, as a node names it (Node::owner_namespace / owner_job) and a pod belongs to it
// (its namespace and Pod::job_key): views, so the walk over every pod builds no "ns/job" string.
struct JobRef {
  std::string_view ns, job;
  bool operator==(const JobRef&) const = default;
};
struct JobRefHash {
  std::size_t operator()(const JobRef& j) const {
    const std::hash<std::string_view> h;
    return h(j.ns) * 31 + h(j.job);
  }
};

// Seconds from `now` until a pod bound to a node is expected to end there; nullopt: not known.
std::optional<Seconds> expected_end(const Pod& p, Time now) {
  const auto run = expected_runtime(p);
  if (!run) return std::nullopt;
  const Time start = p.started != 0 ? p.started : now;
  return std::max<Seconds>(0, start + *run - now);
}

}  // namespace

ReclaimChange decide_reclaim(const Snapshot& s, const Catalog& catalog, const Policy& policy,
                             Time now) {
  ReclaimChange out;
  const bool enabled = policy.reclaim_factor > 0;
  std::vector<Candidate> cands;
  cands.reserve(s.nodes.size());
  NameIndex by_name(s.nodes.size());  // the candidates
  for (const Node& n : s.nodes) {
    if (!enabled || !reclaim_candidate(n)) {
      // Not ours to steer (any more): a taint left from earlier goes, so nothing is closed off
      // for good (a cordon, a removal or an interruption notice decide such a node now).
      if (has_reclaim_taint(n) && n.state != NodeState::Deleting) out.untaint.push_back(n.name);
      continue;
    }
    by_name.add(n.name, static_cast<std::uint32_t>(cands.size()));
    cands.push_back({&n, n.allocatable, {}, false});
  }
  if (cands.empty()) return out;

  // Each node's room, from the pods that hold or are nominated to it. Launch jobs and expected
  // runtimes are looked at below only for the nodes with room (most have none): this runs on
  // every planned loop, over every pod.
  std::vector<std::uint32_t> pending;
  std::vector<std::uint32_t> workers;                            // live pods that are no daemon
  std::vector<std::pair<std::size_t, std::uint32_t>> residents;  // candidate, pod: in pod order
  for (std::uint32_t i = 0; i < s.pods.size(); ++i) {
    const Pod& p = s.pods[i];
    if (p.finished() || p.is_daemon() || p.is_mirror()) {
      if (p.holds_resources()) {
        // Daemon pods take room too.
        const std::uint32_t k = by_name.find(p.node_name);
        if (k != NameIndex::kNone) cands[k].free -= p.requests;
      }
      continue;
    }
    workers.push_back(i);
    if (const std::string* on = p.capacity_node()) {
      const std::uint32_t k = by_name.find(*on);
      if (k != NameIndex::kNone) {
        Candidate& c = cands[k];
        c.free -= p.requests;
        c.used += p.requests;
        residents.emplace_back(k, i);
      }
    }
    if (p.awaits_capacity()) pending.push_back(i);
  }
  std::vector<bool> roomy(cands.size(), false);
  std::vector<bool> untaint(cands.size(), false);     // in candidate order, as they are decided
  std::unordered_map<JobRef, bool, JobRefHash> live;  // the roomy nodes' launch jobs: live?
  for (std::size_t k = 0; k < cands.size(); ++k) {
    const Candidate& c = cands[k];
    const Node& n = *c.node;
    if (c.free.pods <= 0 || c.free.cpu_milli <= 0 || c.free.memory_bytes <= 0 ||
        (n.allocatable.gpus > 0 && c.free.gpus <= 0)) {
      // No room a pod could take: nothing to steer.
      untaint[k] = has_reclaim_taint(n);
      continue;
    }
    roomy[k] = true;
    live.emplace(JobRef{n.owner_namespace, n.owner_job}, false);
  }
  auto untaint_candidates = [&] {
    for (std::size_t k = 0; k < cands.size(); ++k) {
      if (untaint[k]) out.untaint.push_back(cands[k].node->name);
    }
  };
  if (live.empty()) {
    untaint_candidates();
    return out;
  }
  // Which of their launch jobs still have a live pod (pending, gated or bound).
  for (std::uint32_t i : workers) {
    const Pod& p = s.pods[i];
    const std::string job = p.job_key();
    if (auto it = live.find(JobRef{p.ns, job}); it != live.end()) it->second = true;
  }
  for (const auto& [k, i] : residents) {
    Candidate& c = cands[k];
    if (!roomy[k] || !c.left_in) continue;
    const auto end = expected_end(s.pods[i], now);
    c.left_in = end ? std::optional<Seconds>(std::max(*c.left_in, *end)) : std::nullopt;
  }

  // Reclaimable nodes with room worth speaking of, and what that room costs per hour.
  struct Room {
    std::size_t cand;
    double usd_per_hour;
  };
  std::vector<Room> rooms;
  for (std::size_t k = 0; k < cands.size(); ++k) {
    if (!roomy[k]) continue;
    Candidate& c = cands[k];
    const Node& n = *c.node;
    c.job_live = live.at(JobRef{n.owner_namespace, n.owner_job});
    if (c.job_live) {
      // Its launch job still runs or waits: its pods must be able to land.
      untaint[k] = has_reclaim_taint(n);
      continue;
    }
    const double free_share =
        1.0 - static_cast<double>(fitscale::dominant_share(c.used, n.allocatable)) / kWholeNode;
    rooms.push_back({k, static_cast<double>(n.price_micros_per_hour) / 1e6 * free_share});
  }
  untaint_candidates();
  if (rooms.empty()) return out;

  // Pending work, by class: what each pod would cost at least on new nodes.
  std::vector<PodClass> classes;
  std::vector<double> bound_usd;  // per class: the lower bound of one pod ($/h); 0: none fits
  std::vector<std::size_t> left;  // per class: pods not yet given a node below
  std::vector<std::optional<Seconds>> runtime;  // per class exemplar: its expected runtime
  if (!pending.empty()) {
    std::stable_sort(pending.begin(), pending.end(), [&](std::uint32_t a, std::uint32_t b) {
      const Pod& x = s.pods[a];
      const Pod& y = s.pods[b];
      if (x.priority != y.priority) return x.priority > y.priority;
      return x.created < y.created;
    });
    classes = build_classes(s.pods, pending, catalog.gpu_models);
    for (const PodClass& c : classes) {
      bound_usd.push_back(lower_bound_usd_per_hour(*c.exemplar, catalog, policy));
      left.push_back(c.pods.size());
      runtime.push_back(run_profile(*c.exemplar).expected_runtime);
    }
  }

  // Cheapest room first, so pending work goes where it costs least to keep open.
  std::stable_sort(rooms.begin(), rooms.end(),
                   [](const Room& a, const Room& b) { return a.usd_per_hour < b.usd_per_hour; });
  for (const Room& r : rooms) {
    const Candidate& c = cands[r.cand];
    const Node& n = *c.node;
    double worth = 0;   // what the pending pods it would take cost elsewhere, $/h
    bool only = false;  // a pending pod that no new node can hold fits here
    Resources free = c.free;
    const bool canonical_already = labels_are_canonical(n.labels);
    const Labels canonical =
        canonical_already ? Labels{} : canonical_labels(n.labels, catalog.gpu_models);
    const Labels& labels = canonical_already ? n.labels : canonical;
    std::vector<std::pair<std::size_t, std::size_t>> taken;  // class, pods
    for (std::size_t ci = 0; ci < classes.size(); ++ci) {
      if (left[ci] == 0) continue;
      const PodClass& pc = classes[ci];
      const Pod& p = *pc.exemplar;
      if (!fits(p.requests, free)) continue;
      if (pc.on_demand_only && n.capacity_type == CapacityType::Spot) continue;
      if (!labels_admit(pc, labels) || !tolerates_all_but_reclaim(p, n)) continue;
      if (bound_usd[ci] <= 0) only = true;
      if (c.left_in && runtime[ci]) {
        // Both known: what riding here adds to the node's life against a node of its own.
        const double extra = static_cast<double>(std::max<Seconds>(0, *runtime[ci] - *c.left_in));
        const double here = static_cast<double>(n.price_micros_per_hour) / 1e6 * extra;
        const double own = bound_usd[ci] * static_cast<double>(*runtime[ci]);
        if (here <= policy.reclaim_factor / kRuleSpread * own) {
          taken.emplace_back(ci, 1);
          only = true;  // open: it rides here for less than it would pay alone
          break;
        }
        continue;
      }
      std::size_t k = 0;
      while (k < left[ci] && fits(p.requests, free)) {
        free -= p.requests;
        ++k;
      }
      taken.emplace_back(ci, k);
      worth += bound_usd[ci] * static_cast<double>(k);
    }
    const bool open = only || worth * policy.reclaim_factor * kRuleSpread >= r.usd_per_hour;
    if (open) {
      for (const auto& [ci, k] : taken) left[ci] -= k;  // these pods count on this node
      if (has_reclaim_taint(n)) out.untaint.push_back(n.name);
    } else if (!has_reclaim_taint(n)) {
      out.taint.push_back(n.name);
    }
  }
  std::sort(out.taint.begin(), out.taint.end());
  std::sort(out.untaint.begin(), out.untaint.end());
  return out;
}

}  // namespace fitscale::planner
