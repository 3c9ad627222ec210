#include "controller/snapshot_builder.h"

#include <unordered_map>
#include <unordered_set>

namespace fitscale {

OfferingIndex::OfferingIndex(const Catalog& catalog) {
  for (const auto& o : catalog.offerings) {
    by_key_.emplace(o.key(), &o);  // the first pool's, for an instance of an unknown pool
    if (o.pool_index < catalog.pools.size())
      by_key_.emplace(o.key() + "#" + catalog.pools[o.pool_index].name, &o);
  }
}

const Offering* OfferingIndex::find(const std::string& type, const std::string& zone,
                                    CapacityType c, const std::string& pool) const {
  const std::string key = type + "/" + zone + "/" + to_string(c);
  if (!pool.empty()) {
    if (auto it = by_key_.find(key + "#" + pool); it != by_key_.end()) return it->second;
  }
  auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : it->second;
}

void copy_instance(const Instance& inst, Node& n) {
  n.managed = true;
  n.instance_id = inst.id;
  n.instance_type = inst.instance_type;
  n.zone = inst.zone;
  n.capacity_type = inst.capacity_type;
  n.price_micros_per_hour = inst.price_micros_per_hour;
  n.owner_namespace = inst.owner_namespace;
  n.owner_job = inst.job;
  n.launched_at = inst.launched_at;
  n.interruption_notice = inst.interruption_notice;
  n.owned = inst.owned;
}

void count_unreported_gpus(Node& n, std::int64_t reported_gpus, const Instance& inst,
                           const OfferingIndex& offerings) {
  n.allocatable.gpus = reported_gpus;
  n.gpus_unreported = false;
  if (reported_gpus != 0 || n.state == NodeState::InFlight) return;
  const Offering* o = offerings.find(inst.instance_type, inst.zone, inst.capacity_type, inst.pool);
  if (o == nullptr || o->allocatable.gpus <= 0) return;
  n.allocatable.gpus = o->allocatable.gpus;
  n.gpus_unreported = true;
}

Node in_flight_node(const Instance& inst, const OfferingIndex& offerings) {
  Node n;
  n.name = inst.id;
  n.provider_id = inst.provider_id;
  n.state = NodeState::InFlight;
  n.created = inst.launched_at;
  copy_instance(inst, n);
  if (const Offering* o =
          offerings.find(inst.instance_type, inst.zone, inst.capacity_type, inst.pool)) {
    n.labels = o->labels;
    n.allocatable = o->allocatable;
    n.taints = o->taints;  // its pool's: only pods that tolerate them are planned onto it
  }
  return n;
}

Snapshot build_snapshot(ClusterState view, const std::vector<Instance>& instances,
                        const OfferingIndex& offerings, const std::set<std::string>& draining,
                        Time now, EmptySince& empty_since) {
  Snapshot s;
  s.pods = std::move(view.pods);
  s.nodes.reserve(view.nodes.size() + instances.size());

  std::unordered_map<std::string_view, const Instance*> by_provider;
  by_provider.reserve(instances.size());
  // Owned hardware without spec.providerID is its Node by name (cloud/static/).
  std::unordered_map<std::string_view, const Instance*> by_node_name;
  for (const auto& inst : instances) {
    // An empty providerID identifies nothing: never match every Node that has none to it.
    if (!inst.provider_id.empty()) by_provider.emplace(inst.provider_id, &inst);
    if (!inst.node_name.empty()) by_node_name.emplace(inst.node_name, &inst);
  }

  std::unordered_set<std::string_view> pinned;
  for (const auto& p : s.pods) {
    if (p.pins_node()) pinned.insert(p.node_name);
  }

  std::unordered_set<std::string_view> registered;
  EmptySince still_empty;
  for (auto& node : view.nodes) {
    Node n = std::move(node);
    const Instance* inst = nullptr;
    if (auto it = by_provider.find(n.provider_id); it != by_provider.end()) inst = it->second;
    if (inst == nullptr && !by_node_name.empty()) {
      if (auto it = by_node_name.find(n.name); it != by_node_name.end()) inst = it->second;
    }
    if (inst != nullptr) {
      copy_instance(*inst, n);
      count_unreported_gpus(n, n.allocatable.gpus, *inst, offerings);
      registered.insert(inst->id);
    }
    if (draining.count(n.name) != 0) n.state = NodeState::Deleting;
    if (pinned.count(n.name) == 0) {
      auto was = empty_since.find(n.name);
      Time since = was != empty_since.end() ? was->second : now;
      n.empty_since = since;
      still_empty.emplace(n.name, since);
    }
    s.nodes.push_back(std::move(n));
  }
  for (const auto& inst : instances) {
    if (registered.count(inst.id) != 0) continue;
    s.nodes.push_back(in_flight_node(inst, offerings));
  }
  empty_since = std::move(still_empty);
  return s;
}

}  // namespace fitscale
