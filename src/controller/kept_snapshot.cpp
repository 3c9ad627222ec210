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

std::vector<const Pod*> KeptSnapshot::pods_on(const std::string& node) const {
  std::vector<const Pod*> out;
  auto it = bound_at_.find(node);
  if (it == bound_at_.end()) return out;
  std::vector<std::uint32_t> at = it->second;
  std::sort(at.begin(), at.end());
  out.reserve(at.size());
  for (std::uint32_t i : at) out.push_back(&snapshot_.pods[i]);
  return out;
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
  auto leave = [&](const Pod& p, std::size_t at) {
    if (p.node_name.empty()) {
      --unbound_;
      return;
    }
    touched_.insert(p.node_name);
    auto bound = bound_at_.find(p.node_name);
    std::erase(bound->second, static_cast<std::uint32_t>(at));
    if (bound->second.empty()) bound_at_.erase(bound);
    if (p.pins_node()) {
      auto it = pins_.find(p.node_name);
      if (--it->second == 0) pins_.erase(it);
    }
  };
  auto enter = [&](const Pod& p, std::size_t at) {
    if (p.node_name.empty()) {
      ++unbound_;
      return;
    }
    touched_.insert(p.node_name);
    bound_at_[p.node_name].push_back(static_cast<std::uint32_t>(at));
    if (p.pins_node()) ++pins_[p.node_name];
  };
  // The cluster removes a pod by moving its last one into the hole, so most positions keep
  // their pod: compare position by position.
  while (snapshot_.pods.size() > pods.size()) {
    leave(snapshot_.pods.back(), snapshot_.pods.size() - 1);
    snapshot_.pods.pop_back();
    pod_revisions_.pop_back();
  }
  for (std::size_t i = 0; i < snapshot_.pods.size(); ++i) {
    if (pod_revisions_[i] == revisions[i]) continue;
    leave(snapshot_.pods[i], i);
    snapshot_.pods[i] = pods[i];
    pod_revisions_[i] = revisions[i];
    enter(snapshot_.pods[i], i);
  }
  for (std::size_t i = snapshot_.pods.size(); i < pods.size(); ++i) {
    snapshot_.pods.push_back(pods[i]);
    pod_revisions_.push_back(revisions[i]);
    enter(snapshot_.pods.back(), i);
  }
}

bool KeptSnapshot::sync_nodes(const ClusterLoan& loan) {
  if (loan.nodes_version != 0 && loan.nodes_version == nodes_version_) return false;
  nodes_version_ = loan.nodes_version;
  if (loan.node_revisions == node_revisions_) return false;
  // Nodes came, went or changed. Both lists are ordered by name (ClusterLoan), so one walk pairs
  // them: a node with its old revision is kept where it is, a changed one is copied over its old
  // self (keeping its empty time, as build_snapshot does for a node replaced under the same
  // name), and only what came or went moves other nodes. In the simulator a node comes with a
  // name after every other (names follow instance ids) and goes from anywhere.
  set_aside_in_flight();  // they follow the registered nodes; rebuild_in_flight puts them back
  const std::size_t fresh_count = loan.nodes.size();
  std::vector<std::size_t> old_of(fresh_count, registered_);  // registered_: a new node
  std::vector<bool> stays(registered_, false);
  std::size_t last_matched = 0;  // 1 + the last new node that has an old one
  for (std::size_t i = 0, j = 0; j < fresh_count; ++j) {
    const std::string& name = loan.nodes[j]->name;
    while (i < registered_ && snapshot_.nodes[i].name < name) ++i;
    if (i < registered_ && snapshot_.nodes[i].name == name) {
      old_of[j] = i++;
      stays[old_of[j]] = true;
      last_matched = j + 1;
    }
  }
  // A new node before the last old one that stays: the nodes after it must move up.
  bool inserted_before_old = false;
  for (std::size_t j = 0; j < last_matched; ++j) {
    inserted_before_old = inserted_before_old || old_of[j] == registered_;
  }
  auto copy_in = [&](std::size_t j, Node& slot, Extra& x, std::optional<Time> since) {
    slot = *loan.nodes[j];
    x = Extra{};
    x.since = since;
    touched_.insert(slot.name);
  };
  if (!inserted_before_old) {
    // Drop the nodes that went (moving only those after the first of them), refresh the
    // changed ones in place, then append the new ones.
    std::size_t out = 0;
    for (std::size_t i = 0; i < registered_; ++i) {
      if (!stays[i]) continue;
      if (out != i) {
        snapshot_.nodes[out] = std::move(snapshot_.nodes[i]);
        extras_[out] = extras_[i];
      }
      ++out;
    }
    snapshot_.nodes.resize(out);
    extras_.resize(out);
    std::size_t at = 0;
    for (std::size_t j = 0; j < fresh_count; ++j) {
      if (old_of[j] == registered_) {
        snapshot_.nodes.emplace_back();
        extras_.emplace_back();
        copy_in(j, snapshot_.nodes.back(), extras_.back(), std::nullopt);
        continue;
      }
      if (node_revisions_[old_of[j]] != loan.node_revisions[j])
        copy_in(j, snapshot_.nodes[at], extras_[at], extras_[at].since);
      ++at;
    }
  } else {
    std::vector<Node> nodes;
    std::vector<Extra> extras;
    nodes.reserve(fresh_count);
    extras.reserve(fresh_count);
    for (std::size_t j = 0; j < fresh_count; ++j) {
      const std::size_t i = old_of[j];
      if (i != registered_ && node_revisions_[i] == loan.node_revisions[j]) {
        nodes.push_back(std::move(snapshot_.nodes[i]));
        extras.push_back(extras_[i]);
        continue;
      }
      nodes.emplace_back();
      extras.emplace_back();
      copy_in(j, nodes.back(), extras.back(),
              i != registered_ ? extras_[i].since : std::optional<Time>{});
    }
    snapshot_.nodes = std::move(nodes);
    extras_ = std::move(extras);
  }
  node_revisions_ = loan.node_revisions;
  registered_ = fresh_count;
  return true;
}

bool KeptSnapshot::same_instance_fields(const Instance& inst, const Node& n) {
  return n.managed && n.instance_id == inst.id && n.instance_type == inst.instance_type &&
         n.zone == inst.zone && n.capacity_type == inst.capacity_type &&
         n.price_micros_per_hour == inst.price_micros_per_hour &&
         n.owner_namespace == inst.owner_namespace && n.owner_job == inst.job &&
         n.launched_at == inst.launched_at && n.interruption_notice == inst.interruption_notice &&
         n.owned == inst.owned;
}

void KeptSnapshot::derive(std::size_t i, const Node& base, const Instance* inst,
                          const std::set<std::string>& draining, Time now) {
  Node& n = snapshot_.nodes[i];
  Extra& x = extras_[i];
  if (x.instance != nullptr && inst == nullptr && !x.fresh) n = base;  // drop the instance's fields
  if ((x.instance == nullptr) != (inst == nullptr) ||
      (inst != nullptr && n.instance_id != inst->id)) {
    touched_.insert(n.name);  // metered or not, by another instance
  }
  x.instance = inst;
  x.fresh = false;
  if (inst != nullptr) copy_instance(*inst, n);
  n.state = draining.count(n.name) != 0 ? NodeState::Deleting : base.state;
  if (inst != nullptr) count_unreported_gpus(n, base.allocatable.gpus, *inst, *offerings_);
  if (pins_.count(n.name) == 0) {
    if (!x.since) x.since = now;
    n.empty_since = x.since;
  } else {
    x.since.reset();
    n.empty_since = base.empty_since;
  }
}

const Instance* KeptSnapshot::instance_for(const Node& n) {
  const std::vector<Instance>& listing = *listing_;
  constexpr std::size_t kLookAhead = 4;  // instances still booting sit between registered ones
  for (std::size_t k = hint_; k < listing.size() && k < hint_ + kLookAhead; ++k) {
    if (listing[k].provider_id == n.provider_id) {
      hint_ = k + 1;
      return &listing[k];
    }
  }
  auto found = [&](const Instance* inst) {
    hint_ = static_cast<std::size_t>(inst - listing.data()) + 1;
    return inst;
  };
  if (!sorted_by_id_) {
    sorted_by_id_ =
        std::is_sorted(listing.begin(), listing.end(),
                       [](const Instance& a, const Instance& b) { return a.id < b.id; });
  }
  if (*sorted_by_id_ && !n.instance_id.empty()) {
    // A node seen before knows its instance's id: in an id-ordered listing, search for it.
    auto it =
        std::lower_bound(listing.begin(), listing.end(), n.instance_id,
                         [](const Instance& inst, const std::string& id) { return inst.id < id; });
    if (it != listing.end() && it->id == n.instance_id && it->provider_id == n.provider_id)
      return found(&*it);
  }
  if (!indexed_) {
    by_provider_.clear();
    by_provider_.reserve(listing.size());
    for (const auto& inst : listing) by_provider_.emplace(inst.provider_id, &inst);
    indexed_ = true;
  }
  auto it = by_provider_.find(n.provider_id);
  return it == by_provider_.end() ? nullptr : found(it->second);
}

void KeptSnapshot::set_aside_in_flight() {
  if (snapshot_.nodes.size() == registered_) return;
  in_flight_.assign(
      std::make_move_iterator(snapshot_.nodes.begin() + static_cast<std::ptrdiff_t>(registered_)),
      std::make_move_iterator(snapshot_.nodes.end()));
  snapshot_.nodes.resize(registered_);
}

void KeptSnapshot::rebuild_in_flight(const std::vector<Instance>& instances,
                                     const OfferingIndex& offerings) {
  set_aside_in_flight();
  std::vector<bool> registered(instances.size(), false);
  for (std::size_t i = 0; i < registered_; ++i) {
    if (extras_[i].instance != nullptr)
      registered[static_cast<std::size_t>(extras_[i].instance - instances.data())] = true;
  }
  // An instance still booting usually was last time too, in the same order: take its node as
  // it was (an in-flight node copies its offering's labels) when nothing in it changed.
  std::size_t old = 0;
  for (std::size_t k = 0; k < instances.size(); ++k) {
    if (registered[k]) continue;
    const Instance& inst = instances[k];
    constexpr std::size_t kLookAhead = 4;  // those before it went (registered, terminated)
    for (std::size_t at = old; at < in_flight_.size() && at < old + kLookAhead; ++at) {
      if (in_flight_[at].name == inst.id) {
        old = at;
        break;
      }
    }
    if (old < in_flight_.size() && in_flight_[old].name == inst.id &&
        in_flight_[old].provider_id == inst.provider_id &&
        same_instance_fields(inst, in_flight_[old])) {
      snapshot_.nodes.push_back(std::move(in_flight_[old++]));
    } else {
      snapshot_.nodes.push_back(in_flight_node(inst, offerings));
    }
  }
  in_flight_.clear();
}

void KeptSnapshot::update(const ClusterLoan& loan, const std::vector<Instance>& instances,
                          bool instances_changed, const OfferingIndex& offerings,
                          const std::set<std::string>& draining, Time now) {
  touched_.clear();
  offerings_ = &offerings;
  all_touched_ = first_;
  if (first_) instances_changed = true;
  first_ = false;
  if (instances_changed) {
    listing_ = &instances;
    indexed_ = false;
    sorted_by_id_.reset();
  }
  hint_ = 0;
  // A node kept from the last update, with the same listing, has the instance it had.
  auto instance_of = [&](std::size_t i) {
    const Extra& x = extras_[i];
    return !instances_changed && !x.fresh ? x.instance : instance_for(snapshot_.nodes[i]);
  };
  sync_pods(loan);
  const bool nodes_changed = sync_nodes(loan);
  const bool draining_changed = draining != draining_;
  if (draining_changed) draining_ = draining;

  if (draining_changed) {
    for (std::size_t i = 0; i < registered_; ++i)
      derive(i, *loan.nodes[i], instance_of(i), draining, now);
  } else if (instances_changed) {
    // A new listing (every launch, boot and termination makes one) leaves most nodes' instances
    // as they were: those only need to point into the new listing.
    std::vector<bool> moved(registered_, false);  // its pods or empty time changed
    for (const auto* names : {&touched_, &forgotten_}) {
      for (const auto& name : *names) {
        const std::size_t i = find_registered(name);
        if (i != registered_) moved[i] = true;
      }
    }
    for (std::size_t i = 0; i < registered_; ++i) {
      const Node& n = snapshot_.nodes[i];
      Extra& x = extras_[i];
      const Instance* inst = instance_for(n);
      const bool same = !x.fresh && !moved[i] &&
                        (inst == nullptr ? x.instance == nullptr
                                         : x.instance != nullptr && same_instance_fields(*inst, n));
      if (same) {
        x.instance = inst;
      } else {
        derive(i, *loan.nodes[i], inst, draining, now);
      }
    }
  } else {
    // Only nodes whose pods, revision or empty time changed can look different.
    std::set<std::string> names = touched_;
    names.merge(forgotten_);
    for (const auto& name : names) {
      const std::size_t i = find_registered(name);
      if (i != registered_) derive(i, *loan.nodes[i], instance_of(i), draining, now);
    }
  }
  forgotten_.clear();
  if (instances_changed || nodes_changed) rebuild_in_flight(instances, offerings);
}

}  // namespace fitscale
