#include "planner/scale_down.h"

#include <algorithm>
#include <unordered_map>

#include "planner/reasons.h"

namespace fitscale::planner {
namespace {

bool finished(const Pod& p) {
  return p.phase == PodPhase::Succeeded || p.phase == PodPhase::Failed;
}

// Pins a node: removing it would end work fitscale promised never to interrupt.
bool pins(const Pod& p) {
  if (finished(p) || p.is_daemon() || p.is_mirror()) return false;
  return p.is_batch() || p.do_not_disrupt();
}

}  // namespace

std::vector<RemoveDecision> choose_removals(const Snapshot& snapshot, const Policy& policy,
                                            Time now,
                                            const std::set<std::string>& nodes_receiving_pods) {
  std::vector<RemoveDecision> out;
  const bool any_managed = std::any_of(snapshot.nodes.begin(), snapshot.nodes.end(),
                                       [](const Node& n) { return n.managed; });
  if (!any_managed) return out;
  // Which nodes have a reason to go is decided from the node alone, and on most plans no node
  // has one: only then are pods grouped by node (once per plan in the simulator, so it counts).
  std::vector<RemoveDecision> candidates;
  for (const Node& n : snapshot.nodes) {
    if (!n.managed) continue;
    if (nodes_receiving_pods.count(n.name) > 0) continue;
    RemoveDecision d;
    d.node = n.name;
    d.instance_id = n.instance_id;
    const Time launched = n.launched_at != 0 ? n.launched_at : n.created;
    if (n.interruption_notice) {
      d.kind = RemoveReason::Interrupted;
      d.reason = "spot interruption notice";
    } else if (n.state == NodeState::Deleting) {
      // A drain fitscale started and could not finish (an eviction was refused by a
      // PodDisruptionBudget): propose it again so the controller retries the evictions.
      d.kind = RemoveReason::Empty;
      d.reason = "drain in progress";
    } else if ((n.state == NodeState::InFlight || n.state == NodeState::Registered) &&
               now - launched > policy.register_timeout_s) {
      d.kind = RemoveReason::NeverRegistered;
      d.reason = std::string(n.state == NodeState::InFlight ? "not registered" : "not Ready") +
                 " " + short_duration(now - launched) + " after launch (timeout " +
                 short_duration(policy.register_timeout_s) + ")";
    } else if (n.state == NodeState::Ready && n.empty_since &&
               now - *n.empty_since > policy.empty_ttl_s) {
      d.kind = RemoveReason::Empty;
      d.reason = "empty for " + std::to_string(now - *n.empty_since) + "s";
    } else {
      continue;
    }
    candidates.push_back(std::move(d));
  }
  if (candidates.empty()) return out;
  std::unordered_map<std::string_view, std::vector<const Pod*>> on_node;
  for (const auto& d : candidates) on_node[d.node];
  for (const Pod& p : snapshot.pods) {
    if (p.node_name.empty()) continue;
    auto it = on_node.find(p.node_name);
    if (it != on_node.end()) it->second.push_back(&p);
  }
  for (auto& d : candidates) {
    const std::vector<const Pod*>& pods = on_node[d.node];
    bool pinned = false;
    for (const Pod* p : pods) pinned = pinned || pins(*p);
    if (pinned) continue;
    for (const Pod* p : pods) {
      if (finished(*p) || p->is_daemon() || p->is_mirror() || p->terminating) continue;
      d.evict.push_back(p->key());
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace fitscale::planner
