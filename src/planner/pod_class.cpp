#include "planner/pod_class.h"

#include <functional>
#include <string_view>
#include <unordered_map>

#include "planner/predicates.h"

namespace fitscale::planner {
namespace {

// Hashing the scheduling-relevant fields once per pod; equality confirms (collisions are rare
// but must never merge two different classes).
struct Hasher {
  std::size_t h = 0x9e3779b97f4a7c15ULL;
  void add(std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }
  void add(std::string_view s) { add(std::hash<std::string_view>{}(s)); }
  void add(std::int64_t v) { add(std::hash<std::int64_t>{}(v)); }
  void add(const Labels& l) {
    add(static_cast<std::int64_t>(l.size()));
    for (const auto& [k, v] : l) {
      add(k);
      add(v);
    }
  }
  void add(const Requirement& r) {
    add(r.key);
    add(static_cast<std::int64_t>(r.op));
    for (const auto& v : r.values) add(v);
  }
};

std::size_t class_hash(const Pod& p) {
  Hasher h;
  h.add(p.ns);
  const Resources& r = p.requests;
  h.add(r.cpu_milli);
  h.add(r.memory_bytes);
  h.add(r.pods);
  h.add(r.gpus);
  h.add(r.ephemeral_bytes);
  for (const auto& [n, v] : r.extended) {
    h.add(n);
    h.add(v);
  }
  h.add(p.node_selector);
  for (const auto& t : p.required_node_affinity) {
    h.add(std::int64_t{-1});
    for (const auto& req : t.requirements) h.add(req);
  }
  for (const auto& t : p.tolerations) {
    h.add(t.key);
    h.add(t.value);
    h.add(static_cast<std::int64_t>(t.exists));
    h.add(static_cast<std::int64_t>(t.effect ? static_cast<int>(*t.effect) : -1));
  }
  if (!p.anti_affinity_hostname.empty()) {
    for (const auto& s : p.anti_affinity_hostname) {
      h.add(s.match_labels);
      for (const auto& req : s.match_expressions) h.add(req);
    }
    // Whether pods repel each other depends on their labels, so they join the key.
    h.add(p.labels);
  }
  return h.h;
}

bool same_class(const Pod& a, const Pod& b) {
  if (a.ns != b.ns || !(a.requests == b.requests) || a.node_selector != b.node_selector ||
      a.required_node_affinity != b.required_node_affinity || a.tolerations != b.tolerations ||
      a.anti_affinity_hostname != b.anti_affinity_hostname) {
    return false;
  }
  return a.anti_affinity_hostname.empty() || a.labels == b.labels;
}

PodClass make_class(const Pod& p, const std::vector<std::string>& gpu_models) {
  PodClass c;
  c.exemplar = &p;
  for (const auto& [k, v] : p.node_selector) {
    auto [ck, cv] = canonical_label(k, v, gpu_models);
    c.node_selector[ck] = cv;
  }
  for (const auto& t : p.required_node_affinity) {
    NodeSelectorTerm ct;
    for (const auto& r : t.requirements)
      ct.requirements.push_back(canonical_requirement(r, gpu_models));
    c.affinity.push_back(std::move(ct));
  }
  c.has_anti_affinity = !p.anti_affinity_hostname.empty();
  c.self_anti_affinity = c.has_anti_affinity && anti_affinity_conflict(p, p);
  c.on_demand_only = p.requires_on_demand();
  return c;
}

}  // namespace

std::vector<PodClass> build_classes(const std::vector<Pod>& pods,
                                    const std::vector<std::uint32_t>& order,
                                    const std::vector<std::string>& gpu_models) {
  std::vector<PodClass> classes;
  std::unordered_map<std::size_t, std::vector<std::uint32_t>> by_hash;  // hash -> class indexes
  by_hash.reserve(64);
  std::size_t last = 0;  // pods of one class tend to come in runs: try the last class first
  for (std::uint32_t i : order) {
    const Pod& p = pods[i];
    if (!classes.empty() && same_class(*classes[last].exemplar, p)) {
      classes[last].pods.push_back(i);
      continue;
    }
    auto& candidates = by_hash[class_hash(p)];
    bool placed = false;
    for (std::uint32_t ci : candidates) {
      if (same_class(*classes[ci].exemplar, p)) {
        classes[ci].pods.push_back(i);
        last = ci;
        placed = true;
        break;
      }
    }
    if (!placed) {
      last = classes.size();
      candidates.push_back(static_cast<std::uint32_t>(classes.size()));
      classes.push_back(make_class(p, gpu_models));
      classes.back().pods.push_back(i);
    }
  }
  return classes;
}

}  // namespace fitscale::planner
