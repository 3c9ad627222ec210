#include "planner/predicates.h"

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

}  // namespace fitscale::planner
