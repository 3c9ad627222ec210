#pragma once
// New-node packing of one pod class: the cheapest multiset of new nodes for n identical pods.
//
// Why this shape: identical pods on one offering pack by arithmetic (pods per node = min over
// resources of floor(alloc / req)), and in an optimal packing at most one node is partly full
// (move pods between two partly full nodes until one is full or empty: the price never rises).
// So the answer is "bulk" nodes of the offering with the lowest price per pod, plus a small
// dynamic program over the last few nodes' worth of pods (right-sizing the tail). cost(n) is
// O(1) after construction, which budget admission uses to price each job's marginal launch.
#include <cstdint>
#include <vector>

#include "model/catalog.h"
#include "model/money.h"
#include "model/resources.h"

namespace fitscale::planner {

// Which of two equally cheap packings to take. Pods of different jobs end at different times
// and a node goes only when its last pod does, so smaller nodes leave less capacity held by one
// long pod (on Philly's week this was most of the cost above the lower bound). A gang's
// replicas start and end together, and sit better on one node.
enum class PriceTies { SmallerNodes, FewerNodes };

class ClassPacker {
 public:
  // `node_penalty` (micro-dollars per hour) is added to every node's price when choosing, never
  // when pricing: with a node or GPU count cap about to bind, a penalty trades smaller nodes for
  // fewer larger ones, the ones that cost least extra first (issue 12, "caps shape packing").
  ClassPacker(const Resources& req, bool one_per_node, const std::vector<std::uint32_t>& offerings,
              const Catalog& catalog, PriceTies ties = PriceTies::SmallerNodes,
              Micros node_penalty = 0);

  bool can_pack() const { return max_per_node_ > 0; }
  Micros cost(std::int64_t n) const;  // micro-dollars per hour for n pods
  std::int64_t nodes(std::int64_t n) const;
  std::int64_t gpus(std::int64_t n) const;

  // `nodes` nodes of `offering`, each holding `pods_per_node` pods; the steps hold n pods in all.
  struct Step {
    std::uint32_t offering = 0;
    std::int64_t nodes = 0;
    std::int64_t pods_per_node = 0;
  };
  std::vector<Step> layout(std::int64_t n) const;

 private:
  struct Tail {
    Micros cost = 0;        // as chosen (with the node penalty)
    Micros real = 0;        // what it costs
    std::int64_t take = 0;  // pods on the first node of this tail
    std::int64_t nodes = 0;
    std::int64_t gpus = 0;
  };
  // Splits n into bulk nodes (of `bulk_` pods each) and a remainder solved by the tail table.
  std::int64_t bulk_nodes(std::int64_t n) const;

  std::int64_t max_per_node_ = 0;
  std::vector<Micros> best_cost_;  // [p]: cheapest offering holding >= p pods (with the penalty)
  std::vector<Micros> best_real_;  // [p]: that offering's price
  std::vector<std::uint32_t> best_offering_;
  std::vector<std::int64_t> best_gpus_;
  std::int64_t bulk_ = 0;   // pods per bulk node (lowest price per pod)
  std::vector<Tail> tail_;  // optimal packing of r pods, r < 2 * max_per_node_
};

}  // namespace fitscale::planner

namespace fitscale::planner {

// New nodes of one offering and the pods they are for.
struct NewNodes {
  std::uint32_t offering = 0;
  std::int64_t count = 0;
  std::vector<std::uint32_t> pods;  // indexes into the snapshot's pods
};

// Deals `pods` (one class) onto the packer's layout for pods.size() pods, in order.
std::vector<NewNodes> lay_out(const ClassPacker& packer, const std::vector<std::uint32_t>& pods);

}  // namespace fitscale::planner
