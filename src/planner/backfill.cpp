#include "planner/backfill.h"

#include <algorithm>

#include "planner/offering_choice.h"
#include "planner/predicates.h"

namespace fitscale::planner {
namespace {

// Size for the decreasing order: GPUs dominate, then CPU and memory at 4 GiB per core.
double size_of(const Resources& r) {
  return static_cast<double>(r.gpus) * 1e6 +
         std::max(static_cast<double>(r.cpu_milli),
                  static_cast<double>(r.memory_bytes) / (4.0 * 1024 * 1024));
}

// Can pods of `c` go on a node launched as offering `o`? (Its pool's labels and taints too.)
bool may_join(const PodClass& c, const Offering& o) {
  if (c.has_anti_affinity) return false;  // keep repelling pods on nodes of their own class
  return offering_admits(c, o);
}

}  // namespace

std::vector<MixedGroup> pack_mixed(const std::vector<PodClass>& classes,
                                   const std::vector<std::optional<ClassPacker>>& packers,
                                   std::vector<std::vector<std::uint32_t>> admitted,
                                   const Catalog& catalog) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < classes.size(); ++i) {
    if (!admitted[i].empty()) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return size_of(classes[a].exemplar->requests) > size_of(classes[b].exemplar->requests);
  });
  std::vector<std::size_t> taken(classes.size(), 0);  // pods of admitted[i] already on some node
  std::vector<MixedGroup> out;
  for (std::size_t oi = 0; oi < order.size(); ++oi) {
    const std::size_t ci = order[oi];
    if (taken[ci] == admitted[ci].size()) continue;
    const std::vector<std::uint32_t> rest(
        admitted[ci].begin() + static_cast<std::ptrdiff_t>(taken[ci]), admitted[ci].end());
    taken[ci] = admitted[ci].size();
    // A class with anti-affinity repels pods its terms select: its nodes take no fillers
    // (hostname anti-affinity is symmetric, and topology spread on the hostname becomes it).
    const bool hosts = !classes[ci].has_anti_affinity;
    for (NewNodes& g : lay_out(*packers[ci], rest)) {
      const Offering& o = catalog.offerings[g.offering];
      const auto per_node = static_cast<std::int64_t>(g.pods.size()) / g.count;
      Resources room = o.allocatable - classes[ci].exemplar->requests.scaled(per_node);
      for (std::size_t oj = oi + 1; hosts && oj < order.size(); ++oj) {
        const std::size_t cj = order[oj];
        const PodClass& other = classes[cj];
        const std::size_t left = admitted[cj].size() - taken[cj];
        if (left == 0 || other.exemplar->ns != classes[ci].exemplar->ns || !may_join(other, o))
          continue;
        const std::int64_t k = pods_per_node(other.exemplar->requests, room);
        if (k <= 0) continue;
        const std::size_t take = std::min<std::size_t>(left, static_cast<std::size_t>(k * g.count));
        for (std::size_t t = 0; t < take; ++t) g.pods.push_back(admitted[cj][taken[cj] + t]);
        taken[cj] += take;
        // Every node got at most ceil(take / count) of them; leave room for that many.
        const auto per = static_cast<std::int64_t>((take + static_cast<std::size_t>(g.count) - 1) /
                                                   static_cast<std::size_t>(g.count));
        room -= other.exemplar->requests.scaled(per);
      }
      out.push_back({ci, std::move(g)});
    }
  }
  return out;
}

}  // namespace fitscale::planner
