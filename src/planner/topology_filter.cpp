#include "planner/topology_filter.h"

#include <algorithm>

#include "model/taint.h"
#include "planner/topology.h"

namespace fitscale::planner {
namespace {

std::string canonical_key(const std::string& key) {
  const std::string_view ck = canonical_key_of_alias(key);
  return ck.empty() ? key : std::string(ck);
}

const std::string* label_of(const Labels& labels, const std::string& key) {
  auto it = labels.find(key);
  return it == labels.end() ? nullptr : &it->second;
}

bool term_selects(const Pod& owner, const PodAffinityTerm& t, const Pod& other) {
  return term_scope_includes(owner.ns, t.namespaces, t.all_namespaces, other.ns) &&
         matches(t.selector, other.labels);
}

Misfit of_kind(MisfitKind k) {
  Misfit m;
  m.kind = k;
  return m;
}

}  // namespace

bool TopologyFilter::Tracker::selects(const Pod& p) const {
  if (skip_terminating && p.terminating) return false;
  return term_scope_includes(ns, namespaces, all_namespaces, p.ns) && matches(selector, p.labels);
}

bool TopologyFilter::Verdict::constrained() const {
  return !volume_zones.empty() || !spreads.empty() || !repelled.empty() || !anti.empty() ||
         !affinity_keys.empty();
}

TopologyFilter::TopologyFilter(std::vector<NodeRef> nodes) : nodes_(std::move(nodes)) {}

void TopologyFilter::count(Tracker& t, const Pod& p, std::size_t node, std::int64_t by) const {
  if (t.selects(p)) t.per_node[node] += by;
}

void TopologyFilter::add(const Pod& pod, std::size_t node) {
  placed_.emplace_back(&pod, node);
  for (Tracker& t : trackers_) count(t, pod, node, 1);
}

void TopologyFilter::remove(const Pod& pod, std::size_t node) {
  for (auto it = placed_.rbegin(); it != placed_.rend(); ++it) {
    if (it->first == &pod && it->second == node) {
      placed_.erase(std::next(it).base());
      for (Tracker& t : trackers_) count(t, pod, node, -1);
      return;
    }
  }
}

TopologyFilter::Tracker& TopologyFilter::tracker(const std::string& ns,
                                                 const std::vector<std::string>& namespaces,
                                                 bool all_namespaces, const LabelSelector& selector,
                                                 bool spread) {
  for (Tracker& t : trackers_) {
    if (t.ns == ns && t.namespaces == namespaces && t.all_namespaces == all_namespaces &&
        t.selector == selector && t.skip_terminating == spread)
      return t;
  }
  Tracker t{ns, namespaces, all_namespaces, selector, spread, {}};
  t.per_node.assign(nodes_.size(), 0);
  for (const auto& [p, n] : placed_) count(t, *p, n, 1);
  trackers_.push_back(std::move(t));
  return trackers_.back();
}

TopologyFilter::Verdict TopologyFilter::verdict(const Pod& pod) {
  Verdict v;
  const SchedulingConstraints& c = pod.constraints;
  v.volume_zones = c.volume_zones;
  std::sort(v.volume_zones.begin(), v.volume_zones.end());

  // Spread: a node counts when the pod's policies include it and it has every spread key.
  std::vector<std::string> spread_keys;
  for (const auto& sp : c.spread) {
    if (sp.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule)
      spread_keys.push_back(canonical_key(sp.topology_key));
  }
  for (const auto& sp : c.spread) {
    if (sp.when_unsatisfiable != WhenUnsatisfiable::DoNotSchedule) continue;
    Spread s;
    s.key = canonical_key(sp.topology_key);
    s.max_skew = sp.max_skew;
    if (sp.has_selector) {
      // No labelSelector matches no pod: every domain has skew 0, only the label is required.
      s.self_match = matches(sp.selector, pod.labels);
      const Tracker& t = tracker(pod.ns, {}, false, sp.selector, true);
      for (std::size_t i = 0; i < nodes_.size(); ++i) {
        const Labels& labels = *nodes_[i].labels;
        const std::string* d = label_of(labels, s.key);
        if (d == nullptr) continue;
        if (!std::all_of(spread_keys.begin(), spread_keys.end(),
                         [&](const std::string& k) { return labels.count(k) != 0; }))
          continue;
        if (sp.node_affinity_policy == InclusionPolicy::Honor &&
            !labels_admit(pod.node_selector, pod.required_node_affinity, labels))
          continue;
        if (sp.node_taints_policy == InclusionPolicy::Honor &&
            !tolerates_all(pod.tolerations, nodes_[i].node->taints))
          continue;
        s.count[*d] += t.per_node[i];
      }
      std::vector<std::int64_t> counts;
      counts.reserve(s.count.size());
      for (const auto& [d, n] : s.count) counts.push_back(n);
      s.floor = spread_floor(counts, sp.min_domains);
    }
    v.spreads.push_back(std::move(s));
  }

  // Every placed pod's anti-affinity towards this one: the domains it refuses.
  for (const auto& [q, n] : placed_) {
    for (const auto& t : q->constraints.anti_affinity) {
      if (!term_selects(*q, t, pod)) continue;
      const std::string key = canonical_key(t.topology_key);
      if (const std::string* d = label_of(*nodes_[n].labels, key)) v.repelled.emplace_back(key, *d);
    }
  }
  // Its own anti-affinity: the domains that hold a matching pod.
  for (const auto& term : c.anti_affinity) {
    const std::string key = canonical_key(term.topology_key);
    const Tracker& t = tracker(pod.ns, term.namespaces, term.all_namespaces, term.selector, false);
    std::vector<std::string> values;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (t.per_node[i] == 0) continue;
      if (const std::string* d = label_of(*nodes_[i].labels, key)) values.push_back(*d);
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    v.anti.emplace_back(key, std::move(values));
  }
  // Its affinity: domains, per term key, of the pods that match every term.
  if (!c.affinity.empty()) {
    for (const auto& term : c.affinity) v.affinity_keys.push_back(canonical_key(term.topology_key));
    auto tally = [&](std::size_t node, std::int64_t n) {
      for (const auto& key : v.affinity_keys) {
        if (const std::string* d = label_of(*nodes_[node].labels, key))
          v.affinity_count[{key, *d}] += n;
      }
    };
    if (c.affinity.size() == 1) {
      const PodAffinityTerm& term = c.affinity.front();
      const Tracker& t =
          tracker(pod.ns, term.namespaces, term.all_namespaces, term.selector, false);
      for (std::size_t i = 0; i < nodes_.size(); ++i) {
        if (t.per_node[i] != 0) tally(i, t.per_node[i]);
      }
    } else {
      for (const auto& entry : placed_) {
        const Pod& q = *entry.first;
        if (std::all_of(c.affinity.begin(), c.affinity.end(),
                        [&](const PodAffinityTerm& t) { return term_selects(pod, t, q); }))
          tally(entry.second, 1);
      }
    }
    v.affinity_first = v.affinity_count.empty() && std::all_of(c.affinity.begin(), c.affinity.end(),
                                                               [&](const PodAffinityTerm& t) {
                                                                 return term_selects(pod, t, pod);
                                                               });
  }
  return v;
}

Misfit TopologyFilter::check(const Verdict& v, const Labels& labels) {
  if (!v.volume_zones.empty()) {
    const std::string* zone = label_of(labels, std::string(label::kZone));
    if (zone == nullptr || !std::binary_search(v.volume_zones.begin(), v.volume_zones.end(), *zone))
      return of_kind(MisfitKind::VolumeZone);
  }
  for (const Spread& s : v.spreads) {
    const std::string* d = label_of(labels, s.key);
    if (d == nullptr) return of_kind(MisfitKind::TopologySpread);
    auto it = s.count.find(*d);
    const std::int64_t n = it == s.count.end() ? 0 : it->second;
    if (!within_skew(n, s.self_match, s.floor, s.max_skew))
      return of_kind(MisfitKind::TopologySpread);
  }
  for (const auto& [key, value] : v.repelled) {
    const std::string* d = label_of(labels, key);
    if (d != nullptr && *d == value) return of_kind(MisfitKind::ExistingPodAntiAffinity);
  }
  for (const auto& [key, values] : v.anti) {
    const std::string* d = label_of(labels, key);
    if (d != nullptr && std::binary_search(values.begin(), values.end(), *d))
      return of_kind(MisfitKind::PodAntiAffinityTerm);
  }
  if (!v.affinity_keys.empty()) {
    bool all_present = true;
    for (const auto& key : v.affinity_keys) {
      const std::string* d = label_of(labels, key);
      if (d == nullptr) return of_kind(MisfitKind::PodAffinity);  // every key must be there
      if (!v.affinity_count.count({key, *d})) all_present = false;
    }
    if (!all_present && !v.affinity_first) return of_kind(MisfitKind::PodAffinity);
  }
  return {};
}

}  // namespace fitscale::planner
