#include "sim/baseline_disruption.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "planner/predicates.h"

namespace fitscale {

namespace {
constexpr Seconds kKarpenterExpireAfter = Seconds{720} * 3600;  // expireAfter 720h
constexpr std::size_t kCaParallelism = 10;                      // --max-scale-down-parallelism
constexpr double kKarpenterBudget = 0.10;                       // disruption budget nodes: 10%

double fraction(std::int64_t used, std::int64_t have) {
  return have > 0 ? static_cast<double>(used) / static_cast<double>(have) : 0.0;
}
}  // namespace

DisruptionRules disruption_rules(PolicyKind kind) {
  DisruptionRules r;
  if (kind == PolicyKind::ClusterAutoscaler) {
    r.mode = DisruptionRules::Mode::Utilisation;
    r.utilisation_threshold = 0.5;
    r.unneeded_s = 600;
    r.max_per_pass = kCaParallelism;
  } else if (kind == PolicyKind::Karpenter) {
    r.mode = DisruptionRules::Mode::Consolidation;
    r.unneeded_s = 0;
    r.expire_after_s = kKarpenterExpireAfter;
    r.max_share = kKarpenterBudget;
  }
  return r;
}

double node_utilisation(const SimNode& n) {
  const Resources& a = n.node.allocatable;
  const Resources used = a - n.free;
  if (a.gpus > 0) return fraction(used.gpus, a.gpus);
  return std::max(fraction(used.cpu_milli, a.cpu_milli),
                  fraction(used.memory_bytes, a.memory_bytes));
}

std::vector<Disruption> Disruptor::choose(const SimCluster& cluster, Time now) {
  std::vector<Disruption> out;
  if (rules_.mode == DisruptionRules::Mode::None) return out;
  // Nodes that qualify now, fewest pods first (the least disruption; then by name).
  std::vector<std::pair<std::size_t, const SimNode*>> candidates;
  std::set<std::string> seen;
  for (const auto& [name, n] : cluster.nodes()) {
    if (n.node.state != NodeState::Ready || n.node.unschedulable || n.pods.empty()) continue;
    seen.insert(name);
    if (rules_.expire_after_s) {
      if (now - n.node.created >= *rules_.expire_after_s) {
        out.push_back({name, "expired"});
        continue;
      }
    }
    const bool qualifies = rules_.mode == DisruptionRules::Mode::Consolidation ||
                           node_utilisation(n) < rules_.utilisation_threshold;
    if (!qualifies) {
      candidate_since_.erase(name);
      continue;
    }
    const Time since = candidate_since_.try_emplace(name, now).first->second;
    if (now - since >= rules_.unneeded_s) candidates.emplace_back(n.pods.size(), &n);
  }
  std::erase_if(candidate_since_, [&](const auto& kv) { return seen.count(kv.first) == 0; });

  std::size_t limit = std::numeric_limits<std::size_t>::max();
  if (rules_.max_per_pass > 0) limit = rules_.max_per_pass;
  if (rules_.max_share > 0) {
    limit = std::min(limit, static_cast<std::size_t>(std::ceil(
                                rules_.max_share * static_cast<double>(cluster.nodes().size()))));
  }
  if (candidates.empty() || out.size() >= limit) return out;
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });

  // Would every pod of the node fit on the other nodes' free room (the binder's predicates)?
  // Room taken by pods already moved this pass stays taken; nodes being drained take nothing.
  std::map<std::string, Resources> room;
  std::set<std::string> draining;
  for (const auto& d : out) draining.insert(d.node);
  for (const auto& [count, n] : candidates) {
    if (out.size() >= limit) break;
    if (room.count(n->node.name) != 0) continue;  // it takes pods moved off another one
    std::map<std::string, Resources> tentative = room;
    bool all_fit = true;
    for (const auto& key : n->pods) {
      const Pod* p = cluster.pod(key);
      if (p == nullptr) continue;
      const auto& where =
          p->requests.gpus > 0 ? cluster.nodes_with_free_gpus() : cluster.nodes_with_free_cpu();
      const std::string* to = nullptr;
      for (const auto& other : where) {
        if (other == n->node.name || draining.count(other) != 0) continue;
        const SimNode* o = &cluster.nodes().at(other);
        auto t = tentative.find(other);
        const Resources& free = t != tentative.end() ? t->second : o->free;
        if (!planner::fits(p->requests, free)) continue;
        if (!planner::labels_admit(p->node_selector, p->required_node_affinity, o->node.labels))
          continue;
        if (!tolerates_all(p->tolerations, o->node.taints)) continue;
        to = &other;
        break;
      }
      if (to == nullptr) {
        all_fit = false;
        break;
      }
      tentative.try_emplace(*to, cluster.nodes().at(*to).free).first->second -= p->requests;
    }
    if (!all_fit) continue;
    room = std::move(tentative);
    draining.insert(n->node.name);
    out.push_back({n->node.name, rules_.mode == DisruptionRules::Mode::Consolidation
                                     ? "consolidated"
                                     : "underutilized"});
  }
  return out;
}

}  // namespace fitscale
