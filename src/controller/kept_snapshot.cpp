#include "controller/kept_snapshot.h"

#include <algorithm>

namespace fitscale {

std::size_t KeptSnapshot::find_registered(const std::string& name) const {
  // The registered nodes are ordered by name, as the loan lends them.
  auto end = snapshot_.nodes.begin() + static_cast<std::ptrdiff_t>(registered_);
  auto it = std::lower_bound(snapshot_.nodes.begin(), end, name,
                             [](const Node& n, const std::string& key) { return n.name < key; });
  if (it == end || it->name != name) return registered_;
  return static_cast<std::size_t>(it - snapshot_.nodes.begin());
}

const Node* KeptSnapshot::registered(const std::string& name) const {
  const std::size_t i = find_registered(name);
  return i == registered_ ? nullptr : &snapshot_.nodes[i];
}

void KeptSnapshot::forget_empty(const std::string& node) {
  const std::size_t i = find_registered(node);
  if (i == registered_) return;
  extras_[i].since.reset();
  forgotten_.insert(node);
}

void KeptSnapshot::sync_pods(const ClusterLoan& loan) {
  const std::vector<Pod>& pods = *loan.pods;
  const std::vector<std::uint64_t>& revisions = *loan.pod_revisions;
  auto leave = [&](const Pod& p) {
    if (p.node_name.empty()) {
      --unbound_;
      return;
    }
    touched_.insert(p.node_name);
    if (pins_node(p)) {
      auto it = pins_.find(p.node_name);
      if (--it->second == 0) pins_.erase(it);
    }
  };
  auto enter = [&](const Pod& p) {
    if (p.node_name.empty()) {
      ++unbound_;
      return;
    }
    touched_.insert(p.node_name);
    if (pins_node(p)) ++pins_[p.node_name];
  };
  // The cluster removes a pod by moving its last one into the hole, so most positions keep
  // their pod: compare position by position.
  while (snapshot_.pods.size() > pods.size()) {
    leave(snapshot_.pods.back());
    snapshot_.pods.pop_back();
    pod_revisions_.pop_back();
  }
  for (std::size_t i = 0; i < snapshot_.pods.size(); ++i) {
    if (pod_revisions_[i] == revisions[i]) continue;
    leave(snapshot_.pods[i]);
    snapshot_.pods[i] = pods[i];
    pod_revisions_[i] = revisions[i];
    enter(snapshot_.pods[i]);
  }
  for (std::size_t i = snapshot_.pods.size(); i < pods.size(); ++i) {
    snapshot_.pods.push_back(pods[i]);
    pod_revisions_.push_back(revisions[i]);
    enter(snapshot_.pods.back());
  }
}

bool KeptSnapshot::sync_nodes(const ClusterLoan& loan) {
  if (loan.node_revisions == node_revisions_) return false;
  // Nodes came or went (or changed): keep the unchanged ones by revision, copy the others.
  std::unordered_map<std::uint64_t, std::size_t> old_at;
  old_at.reserve(registered_);
  for (std::size_t i = 0; i < registered_; ++i) old_at.emplace(node_revisions_[i], i);
  std::vector<bool> kept(registered_, false);
  std::vector<std::size_t> from(loan.nodes.size(), registered_);
  for (std::size_t j = 0; j < loan.nodes.size(); ++j) {
    auto it = old_at.find(loan.node_revisions[j]);
    if (it != old_at.end()) {
      from[j] = it->second;
      kept[it->second] = true;
    }
  }
  // A node replaced under the same name keeps its empty time, as in build_snapshot.
  std::unordered_map<std::string_view, std::optional<Time>> old_since;
  for (std::size_t i = 0; i < registered_; ++i) {
    if (!kept[i] && extras_[i].since) old_since.emplace(snapshot_.nodes[i].name, extras_[i].since);
  }
  std::vector<Node> nodes;
  std::vector<Extra> extras;
  nodes.reserve(loan.nodes.size() + (snapshot_.nodes.size() - registered_));
  extras.reserve(loan.nodes.size());
  for (std::size_t j = 0; j < loan.nodes.size(); ++j) {
    if (from[j] != registered_) {
      nodes.push_back(std::move(snapshot_.nodes[from[j]]));
      extras.push_back(extras_[from[j]]);
      continue;
    }
    nodes.push_back(*loan.nodes[j]);
    Extra x;
    auto was = old_since.find(nodes.back().name);
    if (was != old_since.end()) x.since = was->second;
    extras.push_back(x);
    touched_.insert(nodes.back().name);
  }
  snapshot_.nodes = std::move(nodes);
  extras_ = std::move(extras);
  node_revisions_ = loan.node_revisions;
  registered_ = loan.nodes.size();
  return true;
}

bool KeptSnapshot::same_instance_fields(const Instance& inst, const Node& n) {
  return n.managed && n.instance_id == inst.id && n.instance_type == inst.instance_type &&
         n.zone == inst.zone && n.capacity_type == inst.capacity_type &&
         n.price_micros_per_hour == inst.price_micros_per_hour &&
         n.owner_namespace == inst.owner_namespace && n.owner_job == inst.job &&
         n.launched_at == inst.launched_at && n.interruption_notice == inst.interruption_notice;
}

void KeptSnapshot::derive(std::size_t i, const Node& base, const std::set<std::string>& draining,
                          Time now) {
  Node& n = snapshot_.nodes[i];
  Extra& x = extras_[i];
  const Instance* inst = nullptr;
  auto it = by_provider_.find(n.provider_id);
  if (it != by_provider_.end()) inst = it->second;
  if (x.instance != nullptr && inst == nullptr && !x.fresh) n = base;  // drop the instance's fields
  if ((x.instance == nullptr) != (inst == nullptr) ||
      (inst != nullptr && n.instance_id != inst->id)) {
    touched_.insert(n.name);  // metered or not, by another instance
  }
  x.instance = inst;
  x.fresh = false;
  if (inst != nullptr) copy_instance(*inst, n);
  n.state = draining.count(n.name) != 0 ? NodeState::Deleting : base.state;
  if (pins_.count(n.name) == 0) {
    if (!x.since) x.since = now;
    n.empty_since = x.since;
  } else {
    x.since.reset();
    n.empty_since = base.empty_since;
  }
}

void KeptSnapshot::rebuild_in_flight(const std::vector<Instance>& instances,
                                     const OfferingIndex& offerings) {
  snapshot_.nodes.resize(registered_);
  std::vector<bool> registered(instances.size(), false);
  for (std::size_t i = 0; i < registered_; ++i) {
    if (extras_[i].instance != nullptr)
      registered[static_cast<std::size_t>(extras_[i].instance - instances.data())] = true;
  }
  for (std::size_t k = 0; k < instances.size(); ++k) {
    if (!registered[k]) snapshot_.nodes.push_back(in_flight_node(instances[k], offerings));
  }
}

void KeptSnapshot::update(const ClusterLoan& loan, const std::vector<Instance>& instances,
                          bool instances_changed, const OfferingIndex& offerings,
                          const std::set<std::string>& draining, Time now) {
  touched_.clear();
  all_touched_ = first_;
  if (first_) instances_changed = true;
  first_ = false;
  if (instances_changed) {
    by_provider_.clear();
    by_provider_.reserve(instances.size());
    for (const auto& inst : instances) by_provider_.emplace(inst.provider_id, &inst);
  }
  sync_pods(loan);
  const bool nodes_changed = sync_nodes(loan);
  const bool draining_changed = draining != draining_;
  if (draining_changed) draining_ = draining;

  if (draining_changed) {
    for (std::size_t i = 0; i < registered_; ++i) derive(i, *loan.nodes[i], draining, now);
  } else if (instances_changed) {
    // A new listing (every launch, boot and termination makes one) leaves most nodes' instances
    // as they were: those only need to point into the new listing.
    for (std::size_t i = 0; i < registered_; ++i) {
      const Node& n = snapshot_.nodes[i];
      Extra& x = extras_[i];
      auto it = by_provider_.find(n.provider_id);
      const Instance* inst = it == by_provider_.end() ? nullptr : it->second;
      const bool same = !x.fresh && touched_.count(n.name) == 0 && forgotten_.count(n.name) == 0 &&
                        (inst == nullptr ? x.instance == nullptr
                                         : x.instance != nullptr && same_instance_fields(*inst, n));
      if (same) {
        x.instance = inst;
      } else {
        derive(i, *loan.nodes[i], draining, now);
      }
    }
  } else {
    // Only nodes whose pods, revision or empty time changed can look different.
    std::set<std::string> names = touched_;
    names.merge(forgotten_);
    for (const auto& name : names) {
      const std::size_t i = find_registered(name);
      if (i != registered_) derive(i, *loan.nodes[i], draining, now);
    }
  }
  forgotten_.clear();
  if (instances_changed || nodes_changed) rebuild_in_flight(instances, offerings);
}

}  // namespace fitscale
