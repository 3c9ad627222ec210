#include "planner/packing.h"

#include <algorithm>
#include <limits>

#include "planner/predicates.h"

namespace fitscale::planner {
namespace {
// Bounds the tail table; a node that could hold more identical pods than this is simply used
// for this many (kubelets default to 110 pods, so this never binds on real catalogs).
constexpr std::int64_t kMaxPerNode = 1024;
constexpr Micros kInf = std::numeric_limits<Micros>::max() / 4;
}  // namespace

ClassPacker::ClassPacker(const Resources& req, bool one_per_node,
                         const std::vector<std::uint32_t>& offerings, const Catalog& catalog,
                         PriceTies ties, Micros node_penalty) {
  const bool fewer = ties == PriceTies::FewerNodes;
  std::vector<std::pair<std::int64_t, std::uint32_t>> per_node;  // (pods per node, offering)
  for (std::uint32_t i : offerings) {
    std::int64_t p = pods_per_node(req, catalog.offerings[i].allocatable);
    if (p <= 0) continue;
    p = std::min(p, one_per_node ? std::int64_t{1} : kMaxPerNode);
    per_node.emplace_back(p, i);
    max_per_node_ = std::max(max_per_node_, p);
  }
  if (max_per_node_ == 0) return;
  const auto m = static_cast<std::size_t>(max_per_node_);
  best_cost_.assign(m + 1, kInf);
  best_real_.assign(m + 1, kInf);
  best_offering_.assign(m + 1, 0);
  best_gpus_.assign(m + 1, 0);
  for (const auto& [p, i] : per_node) {
    const Offering& o = catalog.offerings[i];
    auto& c = best_cost_[static_cast<std::size_t>(p)];
    auto& bo = best_offering_[static_cast<std::size_t>(p)];
    const Micros price = o.micros_per_hour + node_penalty;
    if (price < c || (price == c && i < bo)) {
      c = price;
      best_real_[static_cast<std::size_t>(p)] = o.micros_per_hour;
      bo = i;
      best_gpus_[static_cast<std::size_t>(p)] = o.allocatable.gpus;
    }
  }
  // Suffix minimum: the cheapest offering that holds at least p pods.
  for (std::size_t p = m; p-- > 1;) {
    if (best_cost_[p + 1] < best_cost_[p]) {
      best_cost_[p] = best_cost_[p + 1];
      best_real_[p] = best_real_[p + 1];
      best_offering_[p] = best_offering_[p + 1];
      best_gpus_[p] = best_gpus_[p + 1];
    }
  }
  // Only these counts are worth filling a node with: where a cheaper offering's capacity ends.
  std::vector<std::int64_t> frontier;
  for (std::size_t p = 1; p <= m; ++p) {
    if (p == m || best_cost_[p] < best_cost_[p + 1])
      frontier.push_back(static_cast<std::int64_t>(p));
  }
  bulk_ = frontier.front();
  for (std::int64_t p : frontier) {
    // price/p < price_bulk/bulk, exactly, in integers; ties as `ties` says.
    const __int128 lhs = static_cast<__int128>(best_cost_[static_cast<std::size_t>(p)]) * bulk_;
    const __int128 rhs = static_cast<__int128>(best_cost_[static_cast<std::size_t>(bulk_)]) * p;
    if (lhs < rhs || (fewer && lhs == rhs && p > bulk_)) bulk_ = p;
  }
  const std::size_t limit = 2 * m;
  tail_.assign(limit + 1, Tail{});
  for (std::size_t r = 1; r <= limit; ++r) {
    // One node for all r pods first when fewer nodes win ties, last (and only if strictly
    // cheaper) when smaller ones do; among splits the smallest first node wins a tie.
    Tail best{kInf, kInf, 0, 0, 0};
    const bool one_node = r <= m;
    const Tail alone{best_cost_[r <= m ? r : 0], best_real_[r <= m ? r : 0],
                     static_cast<std::int64_t>(r), 1, best_gpus_[r <= m ? r : 0]};
    if (one_node && fewer) best = alone;
    for (std::int64_t p : frontier) {
      const auto up = static_cast<std::size_t>(p);
      if (up >= r) break;
      const Tail& rest = tail_[r - up];
      const Micros c = best_cost_[up] + rest.cost;
      if (c < best.cost)
        best = {c, best_real_[up] + rest.real, p, rest.nodes + 1, rest.gpus + best_gpus_[up]};
    }
    if (one_node && !fewer && best_cost_[r] < best.cost) best = alone;
    tail_[r] = best;
  }
}

std::int64_t ClassPacker::bulk_nodes(std::int64_t n) const {
  const std::int64_t limit = 2 * max_per_node_;
  if (n <= limit) return 0;
  // Leave a remainder in [max, max + bulk) for the tail table.
  return (n - max_per_node_) / bulk_;
}

Micros ClassPacker::cost(std::int64_t n) const {
  if (n <= 0) return 0;
  const std::int64_t k = bulk_nodes(n);
  return k * best_real_[static_cast<std::size_t>(bulk_)] +
         tail_[static_cast<std::size_t>(n - k * bulk_)].real;
}

std::int64_t ClassPacker::nodes(std::int64_t n) const {
  if (n <= 0) return 0;
  const std::int64_t k = bulk_nodes(n);
  return k + tail_[static_cast<std::size_t>(n - k * bulk_)].nodes;
}

std::int64_t ClassPacker::gpus(std::int64_t n) const {
  if (n <= 0) return 0;
  const std::int64_t k = bulk_nodes(n);
  return k * best_gpus_[static_cast<std::size_t>(bulk_)] +
         tail_[static_cast<std::size_t>(n - k * bulk_)].gpus;
}

std::vector<ClassPacker::Step> ClassPacker::layout(std::int64_t n) const {
  std::vector<Step> steps;
  if (n <= 0) return steps;
  auto add = [&steps](std::uint32_t offering, std::int64_t pods) {
    if (!steps.empty() && steps.back().offering == offering && steps.back().pods_per_node == pods) {
      ++steps.back().nodes;
    } else {
      steps.push_back({offering, 1, pods});
    }
  };
  const std::int64_t k = bulk_nodes(n);
  if (k > 0) steps.push_back({best_offering_[static_cast<std::size_t>(bulk_)], k, bulk_});
  std::int64_t r = n - k * bulk_;
  while (r > 0) {
    const Tail& t = tail_[static_cast<std::size_t>(r)];
    add(best_offering_[static_cast<std::size_t>(t.take)], t.take);
    r -= t.take;
  }
  return steps;
}

}  // namespace fitscale::planner

namespace fitscale::planner {

std::vector<NewNodes> lay_out(const ClassPacker& packer, const std::vector<std::uint32_t>& pods) {
  std::vector<NewNodes> out;
  std::size_t next = 0;
  for (const ClassPacker::Step& s : packer.layout(static_cast<std::int64_t>(pods.size()))) {
    NewNodes n;
    n.offering = s.offering;
    n.count = s.nodes;
    const auto take = static_cast<std::size_t>(s.nodes * s.pods_per_node);
    n.pods.assign(pods.begin() + static_cast<std::ptrdiff_t>(next),
                  pods.begin() + static_cast<std::ptrdiff_t>(next + take));
    next += take;
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace fitscale::planner
