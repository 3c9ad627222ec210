#include "planner/topology.h"

#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>

#include "model/taint.h"
#include "planner/offering_choice.h"
#include "planner/predicates.h"

namespace fitscale::planner {
namespace {

std::string canonical_key(const std::string& key) {
  const std::string_view ck = canonical_key_of_alias(key);
  return ck.empty() ? key : std::string(ck);
}

// Pods matching one selector within a namespace scope, counted per value of one node label
// (a topology domain): the skew of a spread constraint, the domains of an affinity term.
struct Tracker {
  std::string ns;  // the constrained pod's namespace (used when `namespaces` is empty)
  std::vector<std::string> namespaces;
  bool all_namespaces = false;
  LabelSelector selector;
  std::string key;  // canonical node label key
  std::map<std::string, std::int64_t, std::less<>> count;
  std::optional<std::string> promised;  // affinity to pending pods only: the domain chosen
  bool pending_match = false;           // some pending pod matches (affinity trackers)
  bool spread = false;                  // a DoNotSchedule spread constraint counts with it

  bool same(const Tracker& o) const {
    return ns == o.ns && namespaces == o.namespaces && all_namespaces == o.all_namespaces &&
           selector == o.selector && key == o.key;
  }
  bool selects(const Pod& p) const {
    return term_scope_includes(ns, namespaces, all_namespaces, p.ns) && matches(selector, p.labels);
  }
  std::int64_t at(std::string_view d) const {
    auto it = count.find(d);
    return it == count.end() ? 0 : it->second;
  }
  bool any() const {
    return std::any_of(count.begin(), count.end(), [](const auto& e) { return e.second > 0; });
  }
};

// The domains one pod may go to for one key, and those that count towards the skew.
struct Domains {
  std::vector<std::string> placeable;  // sorted, unique
  std::vector<std::string> counted;    // sorted, unique; includes placeable
};

// What a pod is restricted to, built up constraint by constraint.
struct Restriction {
  std::map<std::string, std::vector<std::string>, std::less<>> in;  // key -> allowed (sorted)
  std::map<std::string, std::vector<std::string>, std::less<>> not_in;
  std::vector<Requirement> extra;  // preferred node affinity terms kept
  std::vector<LabelSelector> anti_hostname;

  // Intersects the allowed values of `key` with `values` (sorted), less the forbidden ones;
  // false when none is left.
  bool allow(const std::string& key, std::vector<std::string> values) {
    if (auto f = not_in.find(key); f != not_in.end())
      std::erase_if(values, [&](const std::string& d) {
        return std::binary_search(f->second.begin(), f->second.end(), d);
      });
    auto it = in.find(key);
    if (it == in.end()) {
      in.emplace(key, std::move(values));
      return !in[key].empty();
    }
    std::vector<std::string> both;
    std::set_intersection(it->second.begin(), it->second.end(), values.begin(), values.end(),
                          std::back_inserter(both));
    it->second = std::move(both);
    return !it->second.empty();
  }
  void forbid(const std::string& key, const std::vector<std::string>& values) {
    auto& v = not_in[key];
    v.insert(v.end(), values.begin(), values.end());
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    if (auto it = in.find(key); it != in.end())
      std::erase_if(it->second, [&](const std::string& d) {
        return std::binary_search(v.begin(), v.end(), d);
      });
  }
  bool allows(const std::string& key, const std::string& d) const {
    if (auto it = in.find(key);
        it != in.end() && !std::binary_search(it->second.begin(), it->second.end(), d))
      return false;
    if (auto it = not_in.find(key);
        it != not_in.end() && std::binary_search(it->second.begin(), it->second.end(), d))
      return false;
    return true;
  }
  // The one value `key` is pinned to, or null.
  const std::string* pinned(const std::string& key) const {
    auto it = in.find(key);
    return it != in.end() && it->second.size() == 1 ? &it->second.front() : nullptr;
  }
};

std::vector<std::string> sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

class Resolver {
 public:
  Resolver(const Snapshot& s, const Catalog& c, const Policy& p)
      : s_(s), catalog_(c), offerings_(offerings_in_zones(c, p)) {
    // Nodes the simulated cloud or the decoder labelled are canonical already: point at their
    // labels, copy only the others (a copy per node per loop was most of a simulation's time).
    node_labels_.reserve(s.nodes.size());
    for (const Node& n : s.nodes) {
      if (labels_are_canonical(n.labels)) {
        node_labels_.push_back(&n.labels);
      } else {
        node_labels_.push_back(
            &canonical_copies_.emplace_back(canonical_labels(n.labels, c.gpu_models)));
      }
      node_index_.emplace(n.name, node_labels_.size() - 1);
    }
  }

  std::optional<ResolvedTopology> run() {
    std::vector<std::uint32_t> order;
    bool any = false;
    for (std::uint32_t i = 0; i < s_.pods.size(); ++i) {
      const Pod& p = s_.pods[i];
      if (!p.awaits_capacity()) continue;
      order.push_back(i);
      any = any || p.constraints.any();
    }
    // Bound pods' anti-affinity refuses pending pods of every kind (kube-scheduler honours
    // existing pods' terms): where one runs, its domain is closed to the pods it selects.
    for (const Pod& q : s_.pods) {
      if (!q.holds_resources() || q.constraints.anti_affinity.empty()) continue;
      auto n = node_index_.find(q.node_name);
      if (n != node_index_.end()) repellers_.emplace_back(&q, n->second);
    }
    if (order.empty() || (!any && repellers_.empty())) return std::nullopt;
    std::sort(order.begin(), order.end(), [this](std::uint32_t a, std::uint32_t b) {
      const Pod& x = s_.pods[a];
      const Pod& y = s_.pods[b];
      if (x.priority != y.priority) return x.priority > y.priority;
      if (x.created != y.created) return x.created < y.created;
      if (x.ns != y.ns) return x.ns < y.ns;
      return x.name < y.name;
    });
    make_trackers(order);

    ResolvedTopology out{s_, {}};
    std::vector<bool> refused(s_.pods.size(), false);
    for (std::uint32_t pi : order) {
      const Pod& p = s_.pods[pi];
      Restriction r;
      std::string why;
      sig_ = signature(p);
      if (!restrict(p, r, why)) {
        refused[pi] = true;
        out.refused.push_back({p.key(), p.job_key(), UnschedulableKind::NoOffering, why});
        continue;
      }
      count_in(p, r);
      if (p.constraints.any() || !r.in.empty() || !r.not_in.empty())
        rewrite(out.snapshot.pods[pi], r);
    }
    drop_refused(out, refused);
    return out;
  }

 private:
  Tracker& tracker(const Pod& p, const LabelSelector& sel, const std::string& key,
                   const std::vector<std::string>& namespaces, bool all_ns) {
    Tracker t;
    t.ns = p.ns;
    t.namespaces = namespaces;
    t.all_namespaces = all_ns;
    t.selector = sel;
    t.key = canonical_key(key);
    for (Tracker& e : trackers_) {
      if (e.same(t)) return e;
    }
    trackers_.push_back(std::move(t));
    return trackers_.back();
  }

  // Every tracker the pending pods need, counted over the bound pods; affinity trackers that
  // only pending pods match get their domain promised up front, so the pods they select and
  // the pods that follow them agree whichever is planned first.
  void make_trackers(const std::vector<std::uint32_t>& order) {
    for (std::uint32_t pi : order) {
      const Pod& p = s_.pods[pi];
      const SchedulingConstraints& c = p.constraints;
      for (const auto& sp : c.spread) {
        if (!sp.has_selector) continue;
        Tracker& t = tracker(p, sp.selector, sp.topology_key, {}, false);
        t.spread = t.spread || sp.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule;
      }
      for (const auto* terms : {&c.affinity, &c.anti_affinity})
        for (const auto& t : *terms)
          tracker(p, t.selector, t.topology_key, t.namespaces, t.all_namespaces);
      for (const auto* terms : {&c.preferred_affinity, &c.preferred_anti_affinity})
        for (const auto& w : *terms)
          tracker(p, w.term.selector, w.term.topology_key, w.term.namespaces,
                  w.term.all_namespaces);
    }
    for (const Pod& q : s_.pods) {
      if (!q.holds_resources()) continue;
      auto n = node_index_.find(q.node_name);
      if (n == node_index_.end()) continue;
      const Labels& labels = *node_labels_[n->second];
      for (Tracker& t : trackers_) {
        auto v = labels.find(t.key);
        if (v != labels.end() && t.selects(q)) ++t.count[v->second];
      }
    }
    for (std::uint32_t pi : order) {
      for (Tracker& t : trackers_) {
        if (!t.pending_match && t.selects(s_.pods[pi])) t.pending_match = true;
      }
    }
    for (std::uint32_t pi : order) {
      const Pod& p = s_.pods[pi];
      for (const auto& term : p.constraints.affinity) {
        Tracker& t =
            tracker(p, term.selector, term.topology_key, term.namespaces, term.all_namespaces);
        if (t.promised || t.any() || !t.pending_match || t.key == label::kHostname) continue;
        sig_ = signature(p);
        const Domains& d = domains(p, t.key, InclusionPolicy::Honor, InclusionPolicy::Honor);
        if (!d.placeable.empty()) t.promised = d.placeable.front();
      }
    }
  }

  static bool admits(const Pod& p, const Labels& labels, const std::vector<Taint>& taints,
                     bool honor_affinity = true, bool honor_taints = true) {
    if (honor_affinity && !labels_admit(p.node_selector, p.required_node_affinity, labels))
      return false;
    return !honor_taints || taints.empty() || tolerates_all(p.tolerations, taints);
  }

  // What decides where a pod may go (namespace aside): requests, nodeSelector, required node
  // affinity, tolerations. Pods with the same signature have the same domains.
  static std::string signature(const Pod& p) {
    std::string sig = p.ns;
    sig += '\x1f';
    sig += std::to_string(p.requests.cpu_milli) + ':' + std::to_string(p.requests.memory_bytes) +
           ':' + std::to_string(p.requests.gpus) + ':' + std::to_string(p.requests.ephemeral_bytes);
    for (const auto& [n, v] : p.requests.extended) sig += n + '=' + std::to_string(v);
    for (const auto& [k, v] : p.node_selector) sig += '\x1e' + k + '=' + v;
    for (const auto& t : p.required_node_affinity) {
      sig += '|';
      for (const auto& r : t.requirements) append(sig, r);
    }
    for (const auto& t : p.tolerations) {
      sig += '\x1d' + t.key + '=' + t.value + (t.exists ? "E" : "");
      sig += t.effect ? static_cast<char>('0' + static_cast<int>(*t.effect)) : '-';
    }
    return sig;
  }
  static void append(std::string& sig, const Requirement& r) {
    sig += r.key;
    sig += static_cast<char>('0' + static_cast<int>(r.op));
    for (const auto& v : r.values) {
      sig += v;
      sig += ',';
    }
    sig += ';';
  }

  const Domains& domains(const Pod& p, const std::string& key, InclusionPolicy aff,
                         InclusionPolicy taints) {
    std::string sig = sig_;  // signature(p), computed once per pod
    sig += '\x1f';
    sig += key;
    sig += aff == InclusionPolicy::Honor ? 'H' : 'I';
    sig += taints == InclusionPolicy::Honor ? 'H' : 'I';
    auto [it, fresh] = domain_cache_.try_emplace(std::move(sig));
    if (!fresh) return it->second;
    Domains& d = it->second;
    const bool on_demand_only = p.requires_on_demand();
    for (std::uint32_t oi : offerings_) {
      const Offering& o = catalog_.offerings[oi];
      auto v = o.labels.find(key);
      if (v == o.labels.end()) continue;
      if (on_demand_only && o.capacity_type == CapacityType::Spot) continue;
      if (!fits(p.requests, o.allocatable)) continue;
      if (!admits(p, o.labels, o.taints)) continue;
      d.placeable.push_back(v->second);
    }
    for (std::size_t ni = 0; ni < s_.nodes.size(); ++ni) {
      const Node& n = s_.nodes[ni];
      const Labels& labels = *node_labels_[ni];
      auto v = labels.find(key);
      if (v == labels.end()) continue;
      if (admits(p, labels, n.taints, aff == InclusionPolicy::Honor,
                 taints == InclusionPolicy::Honor))
        d.counted.push_back(v->second);
      if (!n.unschedulable && fits(p.requests, n.allocatable) && admits(p, labels, n.taints))
        d.placeable.push_back(v->second);
    }
    d.placeable = sorted_unique(std::move(d.placeable));
    d.counted.insert(d.counted.end(), d.placeable.begin(), d.placeable.end());
    d.counted = sorted_unique(std::move(d.counted));
    return d;
  }

  // One spread constraint: the domain with the fewest matching pods among those maxSkew
  // allows (kube-scheduler's skew: count + self - global minimum, the minimum taken as 0 while
  // fewer than minDomains domains exist). Hostname spread becomes hostname anti-affinity:
  // a new node is a domain of its own with no pod, so at most one matching pod per node always
  // satisfies the skew (stricter than maxSkew > 1 asks; docs/planner.md).
  bool spread(const Pod& p, const TopologySpreadConstraint& c, Restriction& r, std::string& why) {
    if (!c.has_selector) return true;  // selects no pods: every domain has skew 0
    const std::string key = canonical_key(c.topology_key);
    if (key == label::kHostname) {
      r.anti_hostname.push_back(c.selector);
      return true;
    }
    const Domains& d = domains(p, key, c.node_affinity_policy, c.node_taints_policy);
    const Tracker& t = tracker(p, c.selector, key, {}, false);
    std::vector<std::int64_t> counts;
    counts.reserve(d.counted.size());
    for (const auto& v : d.counted) counts.push_back(t.at(v));
    const std::int64_t min = spread_floor(counts, c.min_domains);
    const bool self = matches(c.selector, p.labels);
    const std::string* best = nullptr;
    std::int64_t best_count = 0;
    for (const auto& v : d.placeable) {
      if (!r.allows(key, v)) continue;
      const std::int64_t n = t.at(v);
      if (!within_skew(n, self, min, c.max_skew)) continue;
      if (!best || n < best_count) {
        best = &v;
        best_count = n;
      }
    }
    if (!best) {
      why = "topology spread on " + key + " (maxSkew " + std::to_string(c.max_skew) +
            (c.min_domains > 0 ? ", minDomains " + std::to_string(c.min_domains) : "") + "): " +
            (d.placeable.empty() ? std::string("no domain the pod may use has that label")
                                 : "every domain it may use would exceed the skew (" +
                                       std::to_string(d.counted.size()) + " domains)");
      return false;
    }
    return r.allow(key, {*best});
  }

  // Required (or preferred, applied as required) pod affinity: the domains where a matching
  // pod runs; with none yet, the domain promised to the pending pods it matches (chosen once:
  // the first the first asking pod may use).
  bool affinity(const Pod& p, const PodAffinityTerm& term, Restriction& r, std::string& why,
                bool preferred = false) {
    Tracker& t = tracker(p, term.selector, term.topology_key, term.namespaces, term.all_namespaces);
    std::vector<std::string> good;
    for (const auto& [v, n] : t.count) {
      if (n > 0) good.push_back(v);
    }
    if (good.empty() && preferred && !t.promised) return true;  // nothing to be near yet
    if (good.empty()) {
      if (!t.pending_match) {
        why = "pod affinity on " + t.key + ": no pod matches its labelSelector";
        return false;
      }
      if (t.key == label::kHostname) return true;  // new nodes: not enforced (docs/planner.md)
      if (!t.promised) {
        const Domains& d = domains(p, t.key, InclusionPolicy::Honor, InclusionPolicy::Honor);
        for (const auto& v : d.placeable) {
          if (r.allows(t.key, v)) {
            t.promised = v;
            break;
          }
        }
        if (!t.promised) {
          why = "pod affinity on " + t.key + ": no domain the pod may use";
          return false;
        }
      }
      good.push_back(*t.promised);
    }
    if (!r.allow(t.key, good)) {
      why = "pod affinity on " + t.key + ": its matching pods are only in " + join(good) +
            ", which its other constraints exclude";
      return false;
    }
    return true;
  }

  // Required anti-affinity on any key other than the hostname within the namespace: not in a
  // domain that has a matching pod. A pod that matches its own term is pinned to one domain,
  // so that the pods after it keep out of it.
  bool anti_affinity(const Pod& p, const PodAffinityTerm& term, Restriction& r, std::string& why) {
    Tracker& t = tracker(p, term.selector, term.topology_key, term.namespaces, term.all_namespaces);
    std::vector<std::string> bad;
    for (const auto& [v, n] : t.count) {
      if (n > 0) bad.push_back(v);
    }
    if (t.key == label::kHostname) r.anti_hostname.push_back(term.selector);
    r.forbid(t.key, bad);
    if (t.key == label::kHostname || !t.selects(p)) return true;
    const Domains& d = domains(p, t.key, InclusionPolicy::Honor, InclusionPolicy::Honor);
    for (const auto& v : d.placeable) {
      if (r.allows(t.key, v)) return r.allow(t.key, {v});
    }
    why = "pod anti-affinity on " + t.key + ": every domain it may use has a matching pod";
    return false;
  }

  // The domains bound pods' anti-affinity terms that select `p` keep it out of.
  void repelled(const Pod& p, Restriction& r) const {
    for (const auto& [q, ni] : repellers_) {
      for (const auto& term : q->constraints.anti_affinity) {
        if (!term_scope_includes(q->ns, term.namespaces, term.all_namespaces, p.ns) ||
            !matches(term.selector, p.labels))
          continue;
        const std::string key = canonical_key(term.topology_key);
        const Labels& labels = *node_labels_[ni];
        if (auto v = labels.find(key); v != labels.end()) r.forbid(key, {v->second});
      }
    }
  }

  bool volumes(const Pod& p, Restriction& r, std::string& why) {
    if (p.constraints.volume_zones.empty()) return true;
    std::vector<std::string> zones = sorted_unique(p.constraints.volume_zones);
    if (auto it = p.node_selector.find(label::kZone); it != p.node_selector.end())
      std::erase_if(zones, [&](const std::string& z) { return z != it->second; });
    if (!zones.empty() && r.allow(std::string(label::kZone), std::move(zones))) return true;
    why = "its volumes are in " + join(p.constraints.volume_zones) +
          ", which its other constraints exclude";
    return false;
  }

  // A pod that some DoNotSchedule spread constraint counts, and that nothing else pins to a
  // domain of its key, goes to the least-counted domain it may use: where it lands decides the
  // skew the spread pods see, so it must be known, and balancing keeps every skew small.
  bool balance(const Pod& p, Restriction& r, std::string& why) {
    for (const Tracker& t : trackers_) {
      if (!t.spread || t.key == label::kHostname || r.pinned(t.key) || !t.selects(p)) continue;
      if (p.node_selector.count(t.key)) continue;
      const Domains& d = domains(p, t.key, InclusionPolicy::Honor, InclusionPolicy::Honor);
      const std::string* best = nullptr;
      for (const auto& v : d.placeable) {
        if (r.allows(t.key, v) && (!best || t.at(v) < t.at(*best))) best = &v;
      }
      if (!best) continue;  // it cannot be in any domain of that key: it counts nowhere
      if (!r.allow(t.key, {*best})) {
        why = "topology spread of other pods on " + t.key + ": no domain left";
        return false;
      }
    }
    return true;
  }

  // The pod with `r` applied admitted by some offering in the zones or some node.
  bool feasible(const Pod& p, const Restriction& r) {
    std::string sig = sig_;
    for (const auto& [k, vs] : r.in) append(sig, {k, SelectorOp::In, vs});
    for (const auto& [k, vs] : r.not_in) append(sig, {k, SelectorOp::NotIn, vs});
    for (const auto& x : r.extra) append(sig, x);
    sig += p.requires_on_demand() ? 'D' : 'S';
    auto [it, fresh] = feasible_cache_.try_emplace(std::move(sig), false);
    if (fresh) it->second = feasible_uncached(p, r);
    return it->second;
  }
  bool feasible_uncached(const Pod& p, const Restriction& r) const {
    Pod q = p;
    rewrite(q, r);
    const bool on_demand_only = q.requires_on_demand();
    for (std::uint32_t oi : offerings_) {
      const Offering& o = catalog_.offerings[oi];
      if (on_demand_only && o.capacity_type == CapacityType::Spot) continue;
      if (fits(q.requests, o.allocatable) && admits(q, o.labels, o.taints)) return true;
    }
    for (std::size_t ni = 0; ni < s_.nodes.size(); ++ni) {
      const Node& n = s_.nodes[ni];
      if (!n.unschedulable && fits(q.requests, n.allocatable) &&
          admits(q, *node_labels_[ni], n.taints))
        return true;
    }
    return false;
  }

  // Required constraints first (any failure refuses the pod), then the preferences, applied
  // as required and relaxed one at a time in Karpenter's order until the pod fits somewhere:
  // preferred pod affinity (heaviest first), preferred pod anti-affinity, preferred node
  // affinity (heaviest first), then ScheduleAnyway spread constraints.
  bool restrict(const Pod& p, Restriction& r, std::string& why) {
    const SchedulingConstraints& c = p.constraints;
    repelled(p, r);
    if (!volumes(p, r, why)) return false;
    // Pods that another pod's required affinity selects, while only pending pods match it, go
    // to the domain promised for it.
    for (const Tracker& t : trackers_) {
      if (!t.promised || !t.selects(p)) continue;
      if (!r.allow(t.key, {*t.promised})) {
        why = "pods with pod affinity to it go to " + t.key + " " + *t.promised +
              ", which its other constraints exclude";
        return false;
      }
    }
    for (const auto& t : c.anti_affinity) {
      if (!anti_affinity(p, t, r, why)) return false;
    }
    for (const auto& t : c.affinity) {
      if (!affinity(p, t, r, why)) return false;
    }
    for (const auto& sp : c.spread) {
      if (sp.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule && !spread(p, sp, r, why))
        return false;
    }
    if (!balance(p, r, why)) return false;
    if (!r.in.empty() || !r.not_in.empty()) {
      if (!feasible(p, r)) {
        if (why.empty()) why = "its topology constraints leave no node or offering that holds it";
        return false;
      }
    }
    // The preferences in relaxation order; the pod keeps the longest tail that still fits.
    struct Pref {
      int kind;  // 0 affinity, 1 anti-affinity, 2 node affinity, 3 spread
      const void* item;
      std::int32_t weight;
    };
    std::vector<Pref> prefs;
    auto by_weight = [](const Pref& a, const Pref& b) { return a.weight > b.weight; };
    const std::size_t a0 = prefs.size();
    for (const auto& w : c.preferred_affinity) prefs.push_back({0, &w.term, w.weight});
    std::stable_sort(prefs.begin() + static_cast<std::ptrdiff_t>(a0), prefs.end(), by_weight);
    const std::size_t a1 = prefs.size();
    for (const auto& w : c.preferred_anti_affinity) prefs.push_back({1, &w.term, w.weight});
    std::stable_sort(prefs.begin() + static_cast<std::ptrdiff_t>(a1), prefs.end(), by_weight);
    const std::size_t a2 = prefs.size();
    for (const auto& t : c.preferred_node_affinity) prefs.push_back({2, &t.preference, t.weight});
    std::stable_sort(prefs.begin() + static_cast<std::ptrdiff_t>(a2), prefs.end(), by_weight);
    for (const auto& sp : c.spread) {
      if (sp.when_unsatisfiable == WhenUnsatisfiable::ScheduleAnyway) prefs.push_back({3, &sp, 0});
    }
    for (std::size_t from = 0; from < prefs.size(); ++from) {
      Restriction trial = r;
      std::string ignored;
      bool ok = true;
      for (std::size_t k = from; k < prefs.size() && ok; ++k) {
        const Pref& pr = prefs[k];
        switch (pr.kind) {
          case 0:
            ok = affinity(p, *static_cast<const PodAffinityTerm*>(pr.item), trial, ignored, true);
            break;
          case 1:
            ok = anti_affinity(p, *static_cast<const PodAffinityTerm*>(pr.item), trial, ignored);
            break;
          case 2: {
            const auto& t = *static_cast<const NodeSelectorTerm*>(pr.item);
            trial.extra.insert(trial.extra.end(), t.requirements.begin(), t.requirements.end());
            break;
          }
          default:
            ok = spread(p, *static_cast<const TopologySpreadConstraint*>(pr.item), trial, ignored);
        }
      }
      if (ok && feasible(p, trial)) {
        r = std::move(trial);
        break;
      }
    }
    return true;
  }

  // Counts the pod, now restricted, in every tracker that selects it and whose key it is
  // pinned to (by this pass or by its own nodeSelector).
  void count_in(const Pod& p, const Restriction& r) {
    for (Tracker& t : trackers_) {
      if (!t.selects(p)) continue;
      const std::string* v = r.pinned(t.key);
      if (!v) {
        auto it = p.node_selector.find(t.key);
        if (it != p.node_selector.end()) v = &it->second;
      }
      if (v) ++t.count[*v];
    }
  }

  static void rewrite(Pod& p, const Restriction& r) {
    std::vector<Requirement> add;
    for (const auto& [k, vs] : r.in) add.push_back({k, SelectorOp::In, vs});
    for (const auto& [k, vs] : r.not_in) {
      if (!vs.empty() && !r.in.count(k)) add.push_back({k, SelectorOp::NotIn, vs});
    }
    add.insert(add.end(), r.extra.begin(), r.extra.end());
    if (!add.empty()) {
      if (p.required_node_affinity.empty()) p.required_node_affinity.emplace_back();
      for (NodeSelectorTerm& t : p.required_node_affinity)
        t.requirements.insert(t.requirements.end(), add.begin(), add.end());
    }
    for (const LabelSelector& s : r.anti_hostname) {
      if (std::find(p.anti_affinity_hostname.begin(), p.anti_affinity_hostname.end(), s) ==
          p.anti_affinity_hostname.end())
        p.anti_affinity_hostname.push_back(s);
    }
    p.constraints = {};
  }

  // Refused pods leave the snapshot the planner sees (they get their reason here); a gang
  // with a refused member is refused whole, it starts only together.
  void drop_refused(ResolvedTopology& out, std::vector<bool>& refused) const {
    std::map<std::pair<std::string_view, std::string_view>, std::string> gangs;
    for (std::size_t i = 0; i < s_.pods.size(); ++i) {
      const Pod& p = s_.pods[i];
      if (refused[i] && p.gang)
        gangs.emplace(std::pair{std::string_view(p.ns), std::string_view(p.gang->name)}, p.key());
    }
    if (!gangs.empty()) {
      for (std::size_t i = 0; i < s_.pods.size(); ++i) {
        const Pod& p = s_.pods[i];
        if (refused[i] || !p.gang || !p.awaits_capacity()) continue;
        auto it = gangs.find({p.ns, p.gang->name});
        if (it == gangs.end()) continue;
        refused[i] = true;
        out.refused.push_back({p.key(), p.job_key(), UnschedulableKind::NoOffering,
                               "gang " + p.gang->name + ": member " + it->second +
                                   " cannot meet its topology constraints"});
      }
    }
    std::size_t w = 0;
    for (std::size_t i = 0; i < out.snapshot.pods.size(); ++i) {
      if (refused[i]) continue;
      if (w != i) out.snapshot.pods[w] = std::move(out.snapshot.pods[i]);
      ++w;
    }
    out.snapshot.pods.resize(w);
  }

  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  }

  const Snapshot& s_;
  const Catalog& catalog_;
  std::vector<std::uint32_t> offerings_;
  std::vector<const Labels*> node_labels_;  // canonical, by node index
  std::deque<Labels> canonical_copies_;     // of the nodes whose own labels are not canonical
  std::unordered_map<std::string_view, std::size_t> node_index_;
  std::deque<Tracker> trackers_;  // a deque: references stay valid as trackers are added
  std::vector<std::pair<const Pod*, std::size_t>> repellers_;  // bound pods with anti-affinity
  std::unordered_map<std::string, Domains> domain_cache_;
  std::unordered_map<std::string, bool> feasible_cache_;
  std::string sig_;  // signature() of the pod being decided: domains() and feasible() key on it
};

}  // namespace

std::int64_t spread_floor(std::span<const std::int64_t> domain_counts, std::int32_t min_domains) {
  if (domain_counts.empty() ||
      static_cast<std::int64_t>(domain_counts.size()) < std::max<std::int32_t>(1, min_domains))
    return 0;
  return *std::min_element(domain_counts.begin(), domain_counts.end());
}

bool within_skew(std::int64_t in_domain, bool self_match, std::int64_t floor,
                 std::int32_t max_skew) {
  return in_domain + (self_match ? 1 : 0) - floor <= max_skew;
}

bool term_scope_includes(const std::string& owner_ns, const std::vector<std::string>& namespaces,
                         bool all_namespaces, const std::string& ns) {
  if (all_namespaces) return true;
  if (namespaces.empty()) return ns == owner_ns;
  return std::find(namespaces.begin(), namespaces.end(), ns) != namespaces.end();
}

std::optional<ResolvedTopology> resolve_topology(const Snapshot& s, const Catalog& catalog,
                                                 const Policy& policy) {
  // Most loops have no constrained pending pod and no bound pod whose anti-affinity repels
  // pending ones (no trace pod has either): say so before the resolver indexes every node.
  if (std::none_of(s.pods.begin(), s.pods.end(), [](const Pod& p) {
        return (p.awaits_capacity() && p.constraints.any()) ||
               (p.holds_resources() && !p.constraints.anti_affinity.empty());
      }))
    return std::nullopt;
  return Resolver(s, catalog, policy).run();
}

}  // namespace fitscale::planner
