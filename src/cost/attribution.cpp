#include "cost/attribution.h"

#include <algorithm>
#include <numeric>

namespace fitscale::cost {
namespace {

using i128 = __int128;

// Cost since launch after `elapsed` seconds, to the nearest micro-dollar (half up).
Micros metered(Micros micros_per_hour, Seconds elapsed) {
  if (elapsed <= 0) return 0;
  const i128 v = static_cast<i128>(micros_per_hour) * elapsed;
  return static_cast<Micros>((v + 1800) / 3600);
}

}  // namespace

Micros node_cost(Micros micros_per_hour, Time launched_at, Time from, Time to) {
  if (to <= from) return 0;
  return metered(micros_per_hour, to - launched_at) - metered(micros_per_hour, from - launched_at);
}

std::vector<Micros> split_exact(Micros total, const std::vector<std::int64_t>& weights) {
  std::vector<Micros> out(weights.size(), 0);
  const i128 sum = std::accumulate(weights.begin(), weights.end(), i128{0});
  if (sum <= 0 || total == 0) return out;
  std::vector<i128> remainder(weights.size());
  Micros given = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const i128 v = static_cast<i128>(total) * weights[i];
    out[i] = static_cast<Micros>(v / sum);
    remainder[i] = v % sum;
    given += out[i];
  }
  std::vector<std::size_t> order(weights.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  // Fewer leftovers than parties: each floor lost less than one micro-dollar.
  for (Micros left = total - given, k = 0; left > 0; --left, ++k)
    ++out[order[static_cast<std::size_t>(k)]];
  return out;
}

Split split_for(const std::vector<PodUsage>& pods, const Resources& allocatable) {
  Split s;
  std::int64_t sum = 0;
  for (const PodUsage& p : pods) {
    PodShare share{p.pod, p.ns, p.job.empty() ? p.pod : p.job,
                   dominant_share(p.requests, allocatable)};
    sum += share.weight;
    s.pods.push_back(std::move(share));
  }
  std::sort(s.pods.begin(), s.pods.end(),
            [](const PodShare& a, const PodShare& b) { return a.pod < b.pod; });
  // Over-committed (requests above allocatable): the pods share the whole node, nothing is idle.
  s.idle_weight = sum >= kWholeNode ? 0 : kWholeNode - sum;
  return s;
}

std::vector<Charge> attribute(const NodeCharge& node, Time launched_at, const Split& split,
                              Time from, Time to) {
  const Micros total = node_cost(node.micros_per_hour, launched_at, from, to);
  std::vector<std::int64_t> weights;
  weights.reserve(split.pods.size() + 1);
  for (const PodShare& p : split.pods) weights.push_back(p.weight);
  weights.push_back(split.idle_weight);
  // All-zero weights (pods requesting nothing on a fully used node cannot happen, but a node
  // of zero allocatable can): the owner pays, as for idle time.
  if (std::all_of(weights.begin(), weights.end(), [](std::int64_t w) { return w == 0; }))
    weights.back() = 1;
  const std::vector<Micros> parts = split_exact(total, weights);
  std::vector<Charge> out;
  for (std::size_t i = 0; i < split.pods.size(); ++i) {
    if (parts[i] == 0) continue;
    out.push_back(Charge{split.pods[i].ns, split.pods[i].job, split.pods[i].pod, false, parts[i]});
  }
  if (parts.back() != 0)
    out.push_back(Charge{node.owner_namespace, node.owner_job, "", true, parts.back()});
  return out;
}

}  // namespace fitscale::cost
