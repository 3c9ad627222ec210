#include "planner/pool_limits.h"

#include <algorithm>

#include "model/quantity.h"

namespace fitscale::planner {

PoolCharge& PoolCharge::operator+=(const PoolCharge& o) {
  cpu_milli += o.cpu_milli;
  memory_bytes += o.memory_bytes;
  gpus += o.gpus;
  nodes += o.nodes;
  micros_per_hour += o.micros_per_hour;
  return *this;
}

PoolCharge& PoolCharge::operator-=(const PoolCharge& o) {
  cpu_milli -= o.cpu_milli;
  memory_bytes -= o.memory_bytes;
  gpus -= o.gpus;
  nodes -= o.nodes;
  micros_per_hour -= o.micros_per_hour;
  return *this;
}

PoolCharge charge_of(const Catalog& catalog, std::uint32_t offering, std::int64_t count) {
  const Offering& o = catalog.offerings[offering];
  const Resources cap = catalog.types[o.type_index].capacity();
  PoolCharge c;
  c.cpu_milli = cap.cpu_milli * count;
  c.memory_bytes = cap.memory_bytes * count;
  c.gpus = cap.gpus * count;
  c.nodes = count;
  c.micros_per_hour = o.micros_per_hour * count;
  return c;
}

PoolCharge charge_of(const Catalog& catalog, const std::vector<NewNodes>& groups) {
  PoolCharge c;
  for (const NewNodes& g : groups) c += charge_of(catalog, g.offering, g.count);
  return c;
}

PoolCharge charge_of(const Catalog& catalog, const ClassPacker& packer, std::int64_t n) {
  PoolCharge c;
  if (n <= 0) return c;
  for (const ClassPacker::Step& s : packer.layout(n)) c += charge_of(catalog, s.offering, s.nodes);
  return c;
}

PoolCharge charge_of(const Catalog& catalog, const Node& n) {
  PoolCharge c;
  if (const InstanceType* t = catalog.find_type(n.instance_type)) {
    const Resources cap = t->capacity();
    c.cpu_milli = cap.cpu_milli;
    c.memory_bytes = cap.memory_bytes;
    c.gpus = cap.gpus;
  } else {
    c.cpu_milli = n.allocatable.cpu_milli;
    c.memory_bytes = n.allocatable.memory_bytes;
    c.gpus = n.allocatable.gpus;
  }
  c.nodes = 1;
  c.micros_per_hour = n.price_micros_per_hour;
  return c;
}

std::map<std::string, PoolCharge, std::less<>> usage_by_pool(const std::vector<Node>& nodes,
                                                             const Catalog& catalog) {
  std::map<std::string, PoolCharge, std::less<>> out;
  for (const Node& n : nodes) {
    // Only nodes fitscale launched count: a node someone else made carries no price of ours.
    if (!n.managed) continue;
    const auto pool = n.labels.find(label::kPool);
    if (pool == n.labels.end()) continue;
    out[pool->second] += charge_of(catalog, n);
  }
  return out;
}

PoolBook::PoolBook(const Snapshot& snapshot, const Catalog& catalog)
    : catalog_(catalog), used_(catalog.pools.size()), reserved_nodes_(catalog.reservations.size()) {
  limited_ =
      !catalog.reservations.empty() || std::any_of(catalog.pools.begin(), catalog.pools.end(),
                                                   [](const Pool& p) { return p.limits.any(); });
  if (!limited_) return;
  if (!catalog.reservations.empty()) {
    for (const Node& n : snapshot.nodes) {
      if (!n.managed) continue;
      const auto id = n.labels.find(label::kCapacityReservationId);
      if (id == n.labels.end()) continue;
      for (std::size_t r = 0; r < catalog.reservations.size(); ++r) {
        if (catalog.reservations[r].id == id->second) ++reserved_nodes_[r];
      }
    }
  }
  const auto usage = usage_by_pool(snapshot.nodes, catalog);
  for (std::uint32_t i = 0; i < catalog.pools.size(); ++i) {
    if (const auto u = usage.find(catalog.pools[i].name); u != usage.end()) used_[i] = u->second;
  }
}

std::optional<std::string> PoolBook::refuse(std::uint32_t pool, const PoolCharge& add) const {
  if (!limited_ || pool >= catalog_.pools.size()) return std::nullopt;
  const Pool& p = catalog_.pools[pool];
  const PoolLimits& l = p.limits;
  const PoolCharge& u = used_[pool];
  auto over = [&](const char* what, const std::string& limit, const std::string& used) {
    return "pool " + p.name + ": its nodes would pass its " + what + " limit of " + limit + " (" +
           used + " in use)";
  };
  if (l.nodes && u.nodes + add.nodes > *l.nodes)
    return over("nodes", format_count(*l.nodes), format_count(u.nodes));
  if (l.gpus && u.gpus + add.gpus > *l.gpus)
    return over("gpus", format_count(*l.gpus), format_count(u.gpus));
  if (l.cpu_milli && u.cpu_milli + add.cpu_milli > *l.cpu_milli)
    return over("cpu", format_count(*l.cpu_milli / 1000), format_count(u.cpu_milli / 1000));
  if (l.memory_bytes && u.memory_bytes + add.memory_bytes > *l.memory_bytes)
    return over("memory", format_bytes_gib(*l.memory_bytes), format_bytes_gib(u.memory_bytes));
  if (l.usd_per_hour &&
      u.micros_per_hour + add.micros_per_hour > dollars_to_micros(*l.usd_per_hour))
    return over("usdPerHour", format_usd(*l.usd_per_hour) + "/h",
                format_usd_micros(u.micros_per_hour) + "/h");
  return std::nullopt;
}

std::optional<std::string> PoolBook::refuse_at(std::uint32_t offering,
                                               const PoolCharge& add) const {
  const Offering& o = catalog_.offerings[offering];
  if (o.reservation && *o.reservation < reserved_nodes_.size()) {
    const Reservation& r = catalog_.reservations[*o.reservation];
    const std::int64_t left =
        std::max<std::int64_t>(0, r.instance_count - reserved_nodes_[*o.reservation]);
    if (add.nodes > left) {
      return "reservation " + r.id + ": " + format_count(left) + " of its " +
             format_count(r.instance_count) + " instances free, " + format_count(add.nodes) +
             " needed";
    }
  }
  return refuse(o.pool_index, add);
}

void PoolBook::charge_at(std::uint32_t offering, const PoolCharge& add) {
  const Offering& o = catalog_.offerings[offering];
  if (o.pool_index < used_.size()) used_[o.pool_index] += add;
  if (o.reservation && *o.reservation < reserved_nodes_.size())
    reserved_nodes_[*o.reservation] += add.nodes;
}

bool PoolBook::room_for(std::uint32_t offering) const {
  if (!limited_) return true;
  return !refuse_at(offering, charge_of(catalog_, offering, 1));
}

std::vector<std::uint32_t> with_room(const PoolBook& book, std::vector<std::uint32_t> candidates) {
  if (!book.limited()) return candidates;
  std::erase_if(candidates, [&](std::uint32_t i) { return !book.room_for(i); });
  return candidates;
}

}  // namespace fitscale::planner
