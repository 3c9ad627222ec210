#include "planner/predicates.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "model/taint.h"
#include "planner/pod_class.h"

namespace fitscale::planner {
namespace {

std::int64_t ext_value(const std::vector<std::pair<std::string, std::int64_t>>& ext,
                       const std::string& name) {
  for (const auto& [n, v] : ext) {
    if (n == name) return v;
  }
  return 0;
}

}  // namespace

Misfit shortfall(const Resources& req, const Resources& avail) {
  auto short_of = [](std::string_view name, std::int64_t want, std::int64_t have) {
    Misfit m;
    m.kind = MisfitKind::Resources;
    m.resource = name;
    m.wanted = want;
    m.free = have;
    return m;
  };
  if (req.cpu_milli > avail.cpu_milli)
    return short_of(kResourceCpu, req.cpu_milli, avail.cpu_milli);
  if (req.memory_bytes > avail.memory_bytes)
    return short_of(kResourceMemory, req.memory_bytes, avail.memory_bytes);
  if (req.pods > avail.pods) return short_of(kResourcePods, req.pods, avail.pods);
  if (req.gpus > avail.gpus) return short_of(kResourceGpu, req.gpus, avail.gpus);
  // Nodes that do not report ephemeral storage cannot refuse on it (as Resources::fits_in).
  if (avail.ephemeral_bytes > 0 && req.ephemeral_bytes > avail.ephemeral_bytes)
    return short_of(kResourceEphemeral, req.ephemeral_bytes, avail.ephemeral_bytes);
  for (const auto& [name, v] : req.extended) {
    const std::int64_t have = ext_value(avail.extended, name);
    if (v > have) return short_of(name, v, have);
  }
  return {};
}

bool fits(const Resources& req, const Resources& avail) {
  if (req.cpu_milli > avail.cpu_milli || req.memory_bytes > avail.memory_bytes ||
      req.pods > avail.pods || req.gpus > avail.gpus) {
    return false;
  }
  // Nodes that do not report ephemeral storage cannot refuse on it (as Resources::fits_in).
  if (avail.ephemeral_bytes > 0 && req.ephemeral_bytes > avail.ephemeral_bytes) return false;
  for (const auto& [name, v] : req.extended) {
    if (v > ext_value(avail.extended, name)) return false;
  }
  return true;
}

std::int64_t pods_per_node(const Resources& req, const Resources& alloc) {
  if (!fits(req, alloc)) return 0;
  std::int64_t n = std::numeric_limits<std::int64_t>::max();
  auto limit = [&n](std::int64_t want, std::int64_t have) {
    if (want > 0) n = std::min(n, have / want);
  };
  limit(req.cpu_milli, alloc.cpu_milli);
  limit(req.memory_bytes, alloc.memory_bytes);
  limit(req.pods, alloc.pods);
  limit(req.gpus, alloc.gpus);
  if (alloc.ephemeral_bytes > 0) limit(req.ephemeral_bytes, alloc.ephemeral_bytes);
  for (const auto& [name, v] : req.extended) limit(v, ext_value(alloc.extended, name));
  // A pod that requests nothing at all is bounded by nothing; treat it as one per node so the
  // arithmetic stays finite (the decoder always sets pods = 1, so this is a hand-built pod).
  return n == std::numeric_limits<std::int64_t>::max() ? 1 : n;
}

double dominant_share(const Resources& req, const Resources& alloc) {
  double s = 0;
  bool missing = false;
  auto share = [&](std::int64_t want, std::int64_t have) {
    if (want <= 0) return;
    if (have <= 0) {
      missing = true;
      return;
    }
    s = std::max(s, static_cast<double>(want) / static_cast<double>(have));
  };
  share(req.cpu_milli, alloc.cpu_milli);
  share(req.memory_bytes, alloc.memory_bytes);
  share(req.pods, alloc.pods);
  share(req.gpus, alloc.gpus);
  if (alloc.ephemeral_bytes > 0) share(req.ephemeral_bytes, alloc.ephemeral_bytes);
  for (const auto& [name, v] : req.extended) share(v, ext_value(alloc.extended, name));
  return missing ? std::numeric_limits<double>::infinity() : s;
}

bool labels_admit(const Labels& node_selector, const std::vector<NodeSelectorTerm>& affinity,
                  const Labels& labels) {
  if (!matches_node_selector(node_selector, labels)) return false;
  if (affinity.empty()) return true;
  return std::any_of(affinity.begin(), affinity.end(),
                     [&](const NodeSelectorTerm& t) { return matches(t, labels); });
}

bool labels_admit(const PodClass& c, const Labels& labels) {
  return labels_admit(c.node_selector, c.affinity, labels);
}

Labels canonical_labels(const Labels& labels, const std::vector<std::string>& gpu_models) {
  Labels out = labels;
  for (const auto& [k, v] : labels) {
    auto [ck, cv] = canonical_label(k, v, gpu_models);
    if (ck != k) out.emplace(std::move(ck), std::move(cv));  // never overrides a GA label
  }
  return out;
}

bool labels_are_canonical(const Labels& labels) {
  for (const auto& [k, v] : labels) {
    const std::string_view ck = canonical_key_of_alias(k);
    if (!ck.empty() && ck != k && labels.find(ck) == labels.end()) return false;
  }
  return true;
}

namespace {
bool repels(const Pod& owner, const Pod& other) {
  if (owner.ns != other.ns) return false;  // terms select pods of the owner's namespace
  return std::any_of(owner.anti_affinity_hostname.begin(), owner.anti_affinity_hostname.end(),
                     [&](const LabelSelector& s) { return matches(s, other.labels); });
}
}  // namespace

bool anti_affinity_conflict(const Pod& incoming, const Pod& resident) {
  return repels(incoming, resident) || repels(resident, incoming);
}

PodNeeds needs_of(const PodClass& c) {
  return PodNeeds{*c.exemplar, c.node_selector, c.affinity, c.on_demand_only};
}

PodNeeds needs_of(const Pod& p) {
  return PodNeeds{p, p.node_selector, p.required_node_affinity, p.requires_on_demand()};
}

// ---- The feasibility check. Each step is one predicate; a new predicate is one more step in
// static_misfit (if it depends only on the class and the node) or dynamic_misfit (if it depends
// on what is placed), so every caller gets it at once.

namespace {

Misfit of_kind(MisfitKind k) {
  Misfit m;
  m.kind = k;
  return m;
}

// Room that is on its way for GPU pods, as an in-flight node is, until the device plugin
// reports (Node::gpus_unreported): counted by the planner, not bound to by a scheduler.
Misfit gpus_unreported_misfit(const PodNeeds& pod, const NodeSide& side) {
  if (side.node.gpus_unreported && pod.pod.requests.gpus > 0 && !side.coming_counts)
    return of_kind(MisfitKind::GpusUnreported);
  return {};
}

Misfit node_affinity_misfit(const PodNeeds& pod, const NodeSide& side) {
  if (pod.node_selector.empty() && pod.affinity.empty()) return {};
  if (labels_admit(pod.node_selector, pod.affinity, side.labels)) return {};
  return of_kind(MisfitKind::NodeAffinity);
}

// fitscale knows the capacity type of a node it launched even before its labels are read (an
// in-flight instance): a pod that requires on-demand never lands on spot (DESIGN.md).
Misfit capacity_type_misfit(const PodNeeds& pod, const NodeSide& side) {
  if (pod.on_demand_only && side.node.managed && side.node.capacity_type == CapacityType::Spot)
    return of_kind(MisfitKind::CapacityType);
  return {};
}

Misfit taint_misfit(const PodNeeds& pod, const NodeSide& side) {
  if (side.node.taints.empty()) return {};
  const Taint* t = first_untolerated(pod.pod.tolerations, side.node.taints);
  if (t == nullptr) return {};
  Misfit m = of_kind(MisfitKind::Taint);
  m.taint = t;
  return m;
}

Misfit pod_anti_affinity_misfit(const PodNeeds& pod, const NodeSide& side) {
  if (pod.pod.anti_affinity_hostname.empty() && !side.residents_repel) return {};
  for (auto span : {side.residents, side.placed}) {
    for (const Pod* q : span) {
      if (anti_affinity_conflict(pod.pod, *q)) {
        Misfit m = of_kind(MisfitKind::PodAntiAffinity);
        m.other = q;
        return m;
      }
    }
  }
  return {};
}

}  // namespace

Misfit node_misfit(const Node& n, bool coming_counts) {
  if (n.state == NodeState::Deleting || n.interruption_notice)
    return of_kind(MisfitKind::NodeBeingRemoved);
  if (n.unschedulable) return of_kind(MisfitKind::NodeUnschedulable);
  if (n.state != NodeState::Ready && !coming_counts) return of_kind(MisfitKind::NodeNotReady);
  return {};
}

Misfit static_misfit(const PodNeeds& pod, const NodeSide& node) {
  if (Misfit m = node_misfit(node.node, node.coming_counts)) return m;
  if (Misfit m = gpus_unreported_misfit(pod, node)) return m;
  if (Misfit m = node_affinity_misfit(pod, node)) return m;
  if (Misfit m = capacity_type_misfit(pod, node)) return m;
  if (Misfit m = taint_misfit(pod, node)) return m;
  return {};
}

Misfit dynamic_misfit(const PodNeeds& pod, const NodeSide& node) {
  if (Misfit m = shortfall(pod.pod.requests, node.free)) return m;
  if (Misfit m = pod_anti_affinity_misfit(pod, node)) return m;
  return {};
}

Misfit misfit(const PodNeeds& pod, const NodeSide& node) {
  if (Misfit m = static_misfit(pod, node)) return m;
  return dynamic_misfit(pod, node);
}

const char* to_string(MisfitKind k) {
  switch (k) {
    case MisfitKind::None:
      return "none";
    case MisfitKind::NodeNotReady:
      return "node-not-ready";
    case MisfitKind::NodeUnschedulable:
      return "node-unschedulable";
    case MisfitKind::NodeBeingRemoved:
      return "node-being-removed";
    case MisfitKind::GpusUnreported:
      return "gpus-unreported";
    case MisfitKind::NodeAffinity:
      return "node-affinity";
    case MisfitKind::CapacityType:
      return "capacity-type";
    case MisfitKind::Taint:
      return "taint";
    case MisfitKind::Resources:
      return "resources";
    case MisfitKind::PodAntiAffinity:
      return "pod-anti-affinity";
    case MisfitKind::VolumeZone:
      return "volume-zone";
    case MisfitKind::TopologySpread:
      return "topology-spread";
    case MisfitKind::ExistingPodAntiAffinity:
      return "existing-pod-anti-affinity";
    case MisfitKind::PodAntiAffinityTerm:
      return "pod-anti-affinity-term";
    case MisfitKind::PodAffinity:
      return "pod-affinity";
  }
  return "none";
}

std::string scheduler_reason(const Misfit& m) {
  switch (m.kind) {
    case MisfitKind::None:
      return "";
    case MisfitKind::NodeNotReady:
      return "node(s) were not ready";
    case MisfitKind::NodeUnschedulable:
      return "node(s) were unschedulable";
    case MisfitKind::NodeBeingRemoved:
      return "node(s) were being removed";
    case MisfitKind::GpusUnreported:
      return "node(s) had not reported their GPUs yet";
    case MisfitKind::NodeAffinity:
      return "node(s) didn't match Pod's node affinity/selector";
    case MisfitKind::CapacityType:
      return "node(s) were spot, the pod requires on-demand";
    case MisfitKind::Taint:
      return fmt::format("node(s) had untolerated taint {{{}: {}}}", m.taint->key, m.taint->value);
    case MisfitKind::Resources:
      return fmt::format("Insufficient {}", m.resource);
    case MisfitKind::PodAntiAffinity:
    case MisfitKind::PodAntiAffinityTerm:
      return "node(s) didn't match pod anti-affinity rules";
    case MisfitKind::VolumeZone:
      return "node(s) had volume node affinity conflict";
    case MisfitKind::TopologySpread:
      return "node(s) didn't match pod topology spread constraints";
    case MisfitKind::ExistingPodAntiAffinity:
      return "node(s) didn't satisfy existing pods anti-affinity rules";
    case MisfitKind::PodAffinity:
      return "node(s) didn't match pod affinity rules";
  }
  return "";
}

std::string describe(const Misfit& m) {
  if (m.kind == MisfitKind::Resources) {
    const bool milli = m.resource == kResourceCpu;
    if (milli) return fmt::format("needs {}m cpu, {}m free", m.wanted, m.free);
    return fmt::format("needs {} {}, {} free", m.wanted, m.resource, m.free);
  }
  if (m.kind == MisfitKind::PodAntiAffinity && m.other != nullptr)
    return fmt::format("anti-affinity with pod {}", m.other->key());
  return scheduler_reason(m);
}

}  // namespace fitscale::planner
