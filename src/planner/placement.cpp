#include "planner/placement.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>

#include "model/dominant_share.h"
#include "model/taint.h"
#include "planner/name_index.h"
#include "planner/predicates.h"

namespace fitscale::planner {
namespace {

bool is_in_flight(const Node& n) {
  return n.state == NodeState::InFlight || n.state == NodeState::Registered;
}

// A node the scheduler could bind to now or once it becomes Ready.
bool takes_new_pods(const Node& n, const Policy& policy, Time now) {
  if (node_misfit(n, /*coming_counts=*/true)) return false;
  if (is_in_flight(n)) {
    // An instance past its registration timeout is about to be removed, not waited for.
    const Time since = n.launched_at != 0 ? n.launched_at : n.created;
    if (now - since > policy.register_timeout_s) return false;
  }
  return true;
}

}  // namespace

ExistingCapacity::ExistingCapacity(const Snapshot& snapshot, const Policy& policy, Time now,
                                   const std::vector<std::string>& gpu_models)
    : snapshot_(snapshot), gpu_models_(gpu_models) {
  std::vector<const Node*> order;
  for (const Node& n : snapshot.nodes) {
    if (takes_new_pods(n, policy, now)) order.push_back(&n);
  }
  auto before = [](const Node* a, const Node* b) {
    const bool fa = is_in_flight(*a);
    const bool fb = is_in_flight(*b);
    if (fa != fb) return !fa;
    return a->name < b->name;
  };
  // The controller's snapshot lists registered nodes by name, then in-flight ones by id.
  if (!std::is_sorted(order.begin(), order.end(), before))
    std::sort(order.begin(), order.end(), before);
  slots_.reserve(order.size());
  for (const Node* n : order) {
    Slot s;
    s.node = n;
    if (!n->zone.empty()) {
      s.zone = n->zone;
    } else {
      const Labels& labels = labels_of(s);
      auto z = labels.find(label::kZone);
      if (z != labels.end()) s.zone = z->second;
    }
    s.free = n->allocatable;
    // GPUs its device plugin has not reported are waited for as long as a registration is.
    if (n->gpus_unreported &&
        now - (n->launched_at != 0 ? n->launched_at : n->created) > policy.register_timeout_s)
      s.free.gpus = 0;
    slots_.push_back(std::move(s));
  }
  if (slots_.empty()) return;
  // Bound pods find their node by name (NameIndex: no allocation per node).
  constexpr std::uint32_t kEmpty = NameIndex::kNone;
  NameIndex by_name(slots_.size());
  for (std::uint32_t i = 0; i < slots_.size(); ++i) by_name.add(slots_[i].node->name, i);
  // Two passes: count each slot's bound pods, then lay them out by slot in one list.
  std::vector<std::uint32_t> slot_of_pod(snapshot.pods.size(), kEmpty);
  std::vector<std::uint32_t> at(slots_.size() + 1, 0);
  for (std::size_t pi = 0; pi < snapshot.pods.size(); ++pi) {
    const Pod& p = snapshot.pods[pi];
    // Bound pods, and pods nominated to a node (preemption reserved room there for them).
    const std::string* node = p.capacity_node();
    if (node == nullptr) continue;
    const std::uint32_t i = by_name.find(*node);
    if (i == kEmpty) continue;
    slot_of_pod[pi] = i;
    ++at[i + 1];
  }
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    at[i + 1] += at[i];
    slots_[i].bound_begin = slots_[i].bound_end = at[i];
  }
  bound_.resize(at.back());
  for (std::size_t pi = 0; pi < snapshot.pods.size(); ++pi) {
    if (slot_of_pod[pi] == kEmpty) continue;
    const Pod& p = snapshot.pods[pi];
    Slot& s = slots_[slot_of_pod[pi]];
    s.free -= p.requests;
    bound_[s.bound_end++] = &p;
    s.anti = s.anti || !p.anti_affinity_hostname.empty();
    if (!p.is_daemon() && !p.is_mirror())
      s.weight += fitscale::dominant_share(p.requests, s.node->allocatable);
  }
  for (Slot& s : slots_) s.free_now = s.free;
}

const Labels& ExistingCapacity::labels_of(const Slot& s) const {
  if (!s.checked) {
    s.checked = true;
    if (!labels_are_canonical(s.node->labels))
      s.rewritten = canonical_labels(s.node->labels, gpu_models_);
  }
  return s.rewritten ? *s.rewritten : s.node->labels;
}

NodeSide ExistingCapacity::side(const Slot& s, const Resources& free, bool coming_counts) const {
  return NodeSide{*s.node,      labels_of(s),
                  free,         {bound_.data() + s.bound_begin, bound_.data() + s.bound_end},
                  s.placed,     s.anti,
                  coming_counts};
}

bool ExistingCapacity::admits(const PodClass& c, const Slot& s) const {
  return !static_misfit(needs_of(c), side(s, s.free, true));
}

Misfit ExistingCapacity::misfit_on(const PodClass& c, const Pod& p, const Slot& s) const {
  return dynamic_misfit(PodNeeds{p, c.node_selector, c.affinity, c.on_demand_only},
                        side(s, s.free, true));
}

Placement ExistingCapacity::put(std::uint32_t pi, std::uint32_t slot,
                                std::map<std::string, std::string>& placements) {
  const Pod& p = snapshot_.pods[pi];
  Slot& s = slots_[slot];
  s.free -= p.requests;
  s.placed.push_back(&p);
  s.anti = s.anti || !p.anti_affinity_hostname.empty();
  placements[p.key()] = s.node->name;
  Placement out{pi, slot, 0, fitscale::dominant_share(p.requests, s.node->allocatable), 0, {}};
  // The pod is charged its share of what is idle now: that part of the node's price moves from
  // the node's owner to the pod's namespace (issue 12, commitment by use). On a node of its own
  // namespace it was committed already, as the node's idle part.
  if (s.node->owner_namespace != p.ns) {
    const std::int64_t take = std::clamp<std::int64_t>(kWholeNode - s.weight, 0, out.weight);
    out.micros_per_hour = share_of(s.node->price_micros_per_hour, take, kWholeNode);
    out.owner = s.node->owner_namespace;
  }
  s.weight += out.weight;
  return out;
}

void ExistingCapacity::undo(const std::vector<Placement>& done,
                            std::map<std::string, std::string>& placements) {
  for (auto it = done.rbegin(); it != done.rend(); ++it) {
    const Pod& p = snapshot_.pods[it->pod];
    Slot& s = slots_[it->slot];
    s.free += p.requests;
    s.weight -= it->weight;
    auto at = std::find(s.placed.begin(), s.placed.end(), &p);
    if (at != s.placed.end()) s.placed.erase(at);
    // s.anti may stay set: it only says anti-affinity must be checked here.
    placements.erase(p.key());
  }
}

Micros ExistingCapacity::dearest_binding(const PodClass& c) const {
  const Pod& p = *c.exemplar;
  Micros most = 0;
  for (const Slot& s : slots_) {
    const Node& n = *s.node;
    if (n.state != NodeState::Ready) continue;  // the scheduler binds to Ready nodes only
    if (n.owner_namespace == p.ns || n.price_micros_per_hour <= most) continue;
    // Room first: most nodes are full, and the static half needs the node's canonical labels.
    if (shortfall(p.requests, s.free_now)) continue;
    if (static_misfit(needs_of(c), side(s, s.free_now, false))) continue;
    const std::int64_t w = fitscale::dominant_share(p.requests, n.allocatable);
    most = std::max(most, share_of(n.price_micros_per_hour, w, kWholeNode));
  }
  return most;
}

std::vector<std::string_view> ExistingCapacity::used_nodes() const {
  std::vector<std::string_view> out;
  for (const Slot& s : slots_) {
    if (!s.placed.empty()) out.push_back(s.node->name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint32_t> ExistingCapacity::place_class(
    const PodClass& c, std::map<std::string, std::string>& placements) {
  ClassCursor cursor;
  std::vector<Placement> done;
  return place_pods(c, c.pods, cursor, placements, done);
}

std::vector<std::uint32_t> ExistingCapacity::place_pods(
    const PodClass& c, const std::vector<std::uint32_t>& pods, ClassCursor& cur,
    std::map<std::string, std::string>& placements, std::vector<Placement>& done) {
  const Resources& req = c.exemplar->requests;
  // A node too small for the class now stays too small (see below): leave it out before
  // looking at its labels.
  if (!cur.built) {
    cur.built = true;
    for (std::uint32_t i = 0; i < slots_.size(); ++i) {
      if (fits(req, slots_[i].free) && admits(c, slots_[i])) cur.candidates.push_back(i);
    }
  }
  std::vector<std::uint32_t> left;
  // Free room only shrinks during a plan (but for a refused job's, given back by undo(), and its
  // caller rewinds the cursor), so a node too small for this class stays too small: the cursor
  // never moves back past what is free, and placing a class costs O(pods + nodes).
  for (std::uint32_t pi : pods) {
    const Pod& p = snapshot_.pods[pi];
    bool placed = false;
    for (std::size_t k = cur.cursor; k < cur.candidates.size(); ++k) {
      const std::uint32_t si = cur.candidates[k];
      Slot& s = slots_[si];
      if (const Misfit m = misfit_on(c, p, s)) {
        if (m.kind == MisfitKind::Resources && k == cur.cursor) ++cur.cursor;
        continue;
      }
      Placement pl = put(pi, si, placements);
      pl.candidate = static_cast<std::uint32_t>(k);
      done.push_back(pl);
      placed = true;
      break;
    }
    if (!placed) left.push_back(pi);
  }
  return left;
}

const Pod* ExistingCapacity::unjudged_pod_fitting(std::string_view node) {
  if (!unjudged_) {
    std::vector<std::uint32_t> waiting;
    for (std::uint32_t i = 0; i < snapshot_.pods.size(); ++i) {
      const Pod& p = snapshot_.pods[i];
      if (p.waits_for_scheduler() && p.scheduler_verdict == SchedulerVerdict::NotYet)
        waiting.push_back(i);
    }
    unjudged_ = build_classes(snapshot_.pods, waiting, gpu_models_);
  }
  if (unjudged_->empty()) return nullptr;
  for (const Slot& s : slots_) {
    if (s.node->name != node) continue;
    for (const PodClass& c : *unjudged_) {
      const Pod& p = *c.exemplar;
      if (!planner::misfit(needs_of(c), side(s, s.free, true))) return &p;
    }
  }
  return nullptr;
}

Relocation ExistingCapacity::relocate(const std::vector<std::uint32_t>& pods,
                                      const std::vector<std::string_view>& excluded) {
  Relocation out;
  const std::vector<PodClass> classes = build_classes(snapshot_.pods, pods, gpu_models_);
  std::vector<std::pair<const Pod*, std::size_t>> done;
  for (const PodClass& c : classes) {
    for (std::uint32_t pi : c.pods) {
      const Pod& p = snapshot_.pods[pi];
      bool placed = false;
      bool any_node = false;
      for (std::size_t i = 0; i < slots_.size() && !placed; ++i) {
        Slot& s = slots_[i];
        if (s.node->state != NodeState::Ready ||
            std::find(excluded.begin(), excluded.end(), s.node->name) != excluded.end())
          continue;
        any_node = true;
        // Evicted pods go to Ready nodes only: the scheduler binds them at once.
        if (planner::misfit(PodNeeds{p, c.node_selector, c.affinity, c.on_demand_only},
                            side(s, s.free, false)))
          continue;
        s.free -= p.requests;
        s.placed.push_back(&p);
        done.emplace_back(&p, i);
        placed = true;
      }
      if (!placed) {
        out.misfit = "pod " + p.key() + " fits on no other " +
                     (any_node ? std::string("node") : std::string("node (there is none)"));
        break;
      }
    }
    if (!out.misfit.empty()) break;
  }
  if (!out.misfit.empty()) {
    for (auto it = done.rbegin(); it != done.rend(); ++it) {
      Slot& s = slots_[it->second];
      s.free += it->first->requests;
      s.placed.pop_back();
    }
    return out;
  }
  for (const auto& [p, i] : done) out.targets.push_back(slots_[i].node->name);
  return out;
}

bool ExistingCapacity::place_gang(const std::vector<PodClass>& members,
                                  std::map<std::string, std::string>& placements,
                                  std::vector<Placement>* placed_out) {
  std::vector<std::string> zones;
  for (const Slot& s : slots_) zones.push_back(s.zone);
  std::sort(zones.begin(), zones.end());
  zones.erase(std::unique(zones.begin(), zones.end()), zones.end());
  for (const std::string& zone : zones) {
    // Tentative placement; undone unless the whole gang fits in this zone.
    std::vector<std::pair<std::uint32_t, std::size_t>> done;
    bool ok = true;
    for (const PodClass& c : members) {
      for (std::uint32_t pi : c.pods) {
        const Pod& p = snapshot_.pods[pi];
        bool placed = false;
        for (std::size_t i = 0; i < slots_.size() && !placed; ++i) {
          Slot& s = slots_[i];
          if (s.zone != zone || !admits(c, s) || misfit_on(c, p, s)) continue;
          s.free -= p.requests;
          s.placed.push_back(&p);
          done.emplace_back(pi, i);
          placed = true;
        }
        if (!placed) {
          ok = false;
          break;
        }
      }
      if (!ok) break;
    }
    // Undo, then commit properly if it all fit (put() records the placements).
    for (auto it = done.rbegin(); it != done.rend(); ++it) {
      Slot& s = slots_[it->second];
      s.free += snapshot_.pods[it->first].requests;
      s.placed.pop_back();
    }
    if (ok) {
      for (const auto& [pi, i] : done) {
        const Placement pl = put(pi, static_cast<std::uint32_t>(i), placements);
        if (placed_out) placed_out->push_back(pl);
      }
      return true;
    }
  }
  return false;
}

}  // namespace fitscale::planner
