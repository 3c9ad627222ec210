#pragma once
// Pool limits (docs/pools.md): what a pool's nodes add up to — running, in flight and planned —
// stays within its limits. The book starts from the snapshot's nodes fitscale launched (by
// their fitscale.io/pool label) and is charged job by job as the planner admits them, so a job's
// new nodes in a pool are all within its limits or the job goes to the next pool. It keeps the
// room left in each reservation the same way (its instance count less the nodes fitscale runs in
// it, by their fitscale.io/capacity-reservation-id label): a job's nodes there all fit in it, or
// the job goes to the pool's spot or on-demand offerings.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/catalog.h"
#include "model/money.h"
#include "planner/packing.h"
#include "planner/plan.h"

namespace fitscale::planner {

// What some nodes count against their pool's limits (capacity, as Karpenter's limits).
struct PoolCharge {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t gpus = 0;
  std::int64_t nodes = 0;
  Micros micros_per_hour = 0;
  PoolCharge& operator+=(const PoolCharge& o);
  PoolCharge& operator-=(const PoolCharge& o);
};

// `count` nodes of `offering`.
PoolCharge charge_of(const Catalog& catalog, std::uint32_t offering, std::int64_t count);
PoolCharge charge_of(const Catalog& catalog, const std::vector<NewNodes>& groups);
// The packer's new nodes for n pods.
PoolCharge charge_of(const Catalog& catalog, const ClassPacker& packer, std::int64_t n);

// What one node fitscale launched counts against its pool (its type's capacity, its price).
PoolCharge charge_of(const Catalog& catalog, const Node& node);
// What the nodes fitscale launched add up to, by their fitscale.io/pool label (also pools no
// longer configured): the limits' "in use" and a Pool object's status.
std::map<std::string, PoolCharge, std::less<>> usage_by_pool(const std::vector<Node>& nodes,
                                                             const Catalog& catalog);

class PoolBook {
 public:
  PoolBook(const Snapshot& snapshot, const Catalog& catalog);

  // Whether any pool has a limit or the catalog a reservation (when none, nothing needs
  // charging).
  bool limited() const { return limited_; }
  // Whether one more node of the offering fits its pool's limits (and its reservation's room).
  bool room_for(std::uint32_t offering) const;
  // Why `add` (nodes of offering `offering`) does not fit its pool's limits or its reservation's
  // room, or nullopt; charge_at books it on both.
  std::optional<std::string> refuse_at(std::uint32_t offering, const PoolCharge& add) const;
  void charge_at(std::uint32_t offering, const PoolCharge& add);
  // Why `add` does not fit pool `pool`'s limits ("pool gpu: ... nodes limit of 2"), or nullopt.
  std::optional<std::string> refuse(std::uint32_t pool, const PoolCharge& add) const;
  void charge(std::uint32_t pool, const PoolCharge& add) { used_[pool] += add; }

 private:
  const Catalog& catalog_;
  std::vector<PoolCharge> used_;              // by pool index
  std::vector<std::int64_t> reserved_nodes_;  // by Catalog::reservations index
  bool limited_ = false;
};

// `candidates` without the offerings whose pool has no room for one more node of them.
std::vector<std::uint32_t> with_room(const PoolBook& book, std::vector<std::uint32_t> candidates);

}  // namespace fitscale::planner
