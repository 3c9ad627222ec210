#include "sim/sim_cluster.h"

#include <algorithm>

namespace fitscale {

planner::Misfit binder_misfit(const Pod& pod, const SimNode& node, const Resources& free) {
  if (planner::Misfit m = binder_static_misfit(pod, node)) return m;
  return binder_dynamic_misfit(pod, node, free);
}

planner::Misfit binder_static_misfit(const Pod& pod, const SimNode& node) {
  return planner::static_misfit(planner::needs_of(pod),
                                planner::NodeSide{node.node, node.node.labels, node.free});
}

planner::Misfit binder_dynamic_misfit(const Pod& pod, const SimNode& node, const Resources& free) {
  return planner::dynamic_misfit(planner::needs_of(pod),
                                 planner::NodeSide{node.node, node.node.labels, free});
}

ClusterState SimCluster::observe() {
  ClusterState s;
  s.synced = true;
  s.nodes.reserve(nodes_.size());
  for (const auto& [name, n] : nodes_) s.nodes.push_back(n.node);
  s.pods = pods_;
  return s;
}

bool SimCluster::lend(ClusterLoan& loan) {
  if (nodes_changed_) {
    nodes_changed_ = false;
    ++lent_version_;
    lent_nodes_.clear();
    lent_revisions_.clear();
    for (const auto& [name, n] : nodes_) {
      lent_nodes_.push_back(&n.node);
      lent_revisions_.push_back(n.revision);
    }
  }
  if (loan.nodes_version != lent_version_) {
    loan.nodes = lent_nodes_;
    loan.node_revisions = lent_revisions_;
    loan.nodes_version = lent_version_;
  }
  loan.pods = &pods_;
  loan.pod_revisions = &pod_revisions_;
  return true;
}

bool SimCluster::cordon(const std::string& node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return false;
  if (!it->second.node.unschedulable) {
    it->second.node.unschedulable = true;
    update_room(node, it->second);
    it->second.revision = ++generation_;
    nodes_changed_ = true;
  }
  return true;
}

bool SimCluster::uncordon(const std::string& node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return false;
  if (it->second.node.unschedulable) {
    it->second.node.unschedulable = false;
    room_opened_ = true;
    update_room(node, it->second);
    it->second.revision = ++generation_;
    nodes_changed_ = true;
  }
  return true;
}

bool SimCluster::add_taint(const std::string& node, const Taint& taint) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return false;
  auto& taints = it->second.node.taints;
  if (std::find(taints.begin(), taints.end(), taint) == taints.end()) {
    taints.push_back(taint);
    it->second.revision = ++generation_;
    nodes_changed_ = true;
  }
  return true;
}

bool SimCluster::remove_taint(const std::string& node, const std::string& key) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return false;
  if (std::erase_if(it->second.node.taints, [&](const Taint& t) { return t.key == key; }) != 0) {
    room_opened_ = true;
    it->second.revision = ++generation_;
    nodes_changed_ = true;
  }
  return true;
}

EvictOutcome SimCluster::evict(const std::string& ns, const std::string& pod) {
  const std::string key = ns + "/" + pod;
  auto it = pod_index_.find(key);
  if (it == pod_index_.end()) return EvictOutcome::NotFound;
  if (!pods_[it->second].node_name.empty()) {
    unbind(key);
    lost_.push_back(key);
  }
  return EvictOutcome::Evicted;
}

bool SimCluster::delete_node(const std::string& node) {
  if (nodes_.count(node) == 0) return false;
  for (auto& p : remove_node(node)) lost_.push_back(std::move(p));
  return true;
}

bool SimCluster::delete_pod(const std::string& ns, const std::string& pod) {
  const std::string key = ns + "/" + pod;
  if (pod_index_.count(key) == 0) return true;
  remove_pod(key);
  deleted_.push_back(key);
  return true;
}

bool SimCluster::remove_scheduling_gate(const std::string& ns, const std::string& pod,
                                        std::string_view gate) {
  const std::string key = ns + "/" + pod;
  auto it = pod_index_.find(key);
  if (it == pod_index_.end()) return true;  // gone: nothing holds it
  auto& gates = pods_[it->second].scheduling_gates;
  auto g = std::find(gates.begin(), gates.end(), gate);
  if (g == gates.end()) return true;
  gates.erase(g);
  pod_revisions_[it->second] = ++generation_;
  if (gates.empty()) ungated_.push_back(key);
  return true;
}

void SimCluster::add_scheduling_gate(const std::string& pod, std::string_view gate) {
  auto it = pod_index_.find(pod);
  if (it == pod_index_.end()) return;
  Pod& p = pods_[it->second];
  if (!p.node_name.empty()) return;
  if (std::find(p.scheduling_gates.begin(), p.scheduling_gates.end(), gate) !=
      p.scheduling_gates.end())
    return;
  p.scheduling_gates.emplace_back(gate);
  pod_revisions_[it->second] = ++generation_;
}

std::vector<std::string> SimCluster::take_ungated() { return std::exchange(ungated_, {}); }

void SimCluster::record_event(const ObjectRef& about, const std::string& type,
                              const std::string& reason, const std::string& message) {
  ++event_counts_[reason];
  if (keep_events_) events_.push_back(SimEvent{about, type, reason, message});
}

void SimCluster::add_node(Node node) {
  SimNode n;
  n.free = node.allocatable;
  std::string name = node.name;
  n.node = std::move(node);
  update_room(name, n);
  n.revision = ++generation_;
  nodes_[name] = std::move(n);
  nodes_changed_ = true;
}

void SimCluster::add_pod(Pod pod) {
  pod_index_[pod.key()] = pods_.size();
  pods_.push_back(std::move(pod));
  pod_revisions_.push_back(++generation_);
}

void SimCluster::remove_pod(const std::string& key) {
  auto it = pod_index_.find(key);
  if (it == pod_index_.end()) return;
  if (!pods_[it->second].node_name.empty()) unbind(key);
  std::size_t at = it->second;
  pod_index_.erase(it);
  if (at + 1 != pods_.size()) {
    pods_[at] = std::move(pods_.back());
    pod_revisions_[at] = pod_revisions_.back();
    pod_index_[pods_[at].key()] = at;
  }
  pods_.pop_back();
  pod_revisions_.pop_back();
  ++generation_;
}

void SimCluster::bind(const std::string& pod, const std::string& node, Time started) {
  const std::size_t at = pod_index_.at(pod);
  Pod& p = pods_[at];
  SimNode& n = nodes_.at(node);
  p.node_name = node;
  p.phase = PodPhase::Running;
  p.started = started;
  n.free -= p.requests;
  n.pods.push_back(pod);
  update_room(node, n);
  pod_revisions_[at] = ++generation_;
}

void SimCluster::unbind(const std::string& pod) {
  const std::size_t at = pod_index_.at(pod);
  Pod& p = pods_[at];
  if (p.node_name.empty()) return;
  auto it = nodes_.find(p.node_name);
  if (it != nodes_.end()) {
    SimNode& n = it->second;
    n.free += p.requests;
    std::erase(n.pods, pod);
    update_room(p.node_name, n);
  }
  p.node_name.clear();
  p.phase = PodPhase::Pending;
  p.started = 0;
  pod_revisions_[at] = ++generation_;
}

std::vector<std::string> SimCluster::remove_node(const std::string& node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return {};
  std::vector<std::string> pods = it->second.pods;
  for (const auto& p : pods) unbind(p);
  nodes_.erase(node);
  nodes_changed_ = true;
  gpu_room_.erase(node);
  cpu_room_.erase(node);
  ++generation_;
  return pods;
}

std::vector<std::string> SimCluster::take_lost() { return std::exchange(lost_, {}); }

std::vector<std::string> SimCluster::take_deleted() { return std::exchange(deleted_, {}); }

const Pod* SimCluster::pod(const std::string& key) const {
  auto it = pod_index_.find(key);
  return it == pod_index_.end() ? nullptr : &pods_[it->second];
}

SimNode* SimCluster::node(const std::string& name) {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : &it->second;
}

void SimCluster::update_room(const std::string& name, const SimNode& n) {
  const bool open = n.node.state == NodeState::Ready && !n.node.unschedulable && n.free.pods > 0;
  if (open && n.free.gpus > 0) {
    gpu_room_.insert(name);
  } else {
    gpu_room_.erase(name);
  }
  if (open && n.free.cpu_milli > 0 && n.free.memory_bytes > 0) {
    cpu_room_.insert(name);
  } else {
    cpu_room_.erase(name);
  }
}

}  // namespace fitscale
