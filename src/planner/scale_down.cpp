#include "planner/scale_down.h"

#include <algorithm>
#include <unordered_map>

#include "planner/reasons.h"

namespace fitscale::planner {
namespace {

// Why a node should go, decided from the node's own fields.
enum class Cause { None, Interrupted, Draining, NotReady, NeverRegistered, EmptyTooLong };

Time launched_at(const Node& n) { return n.launched_at != 0 ? n.launched_at : n.created; }

Cause cause_of(const Node& n, const Catalog& catalog, const Policy& policy, Time now) {
  if (!may_remove(n)) return Cause::None;  // not ours, or owned hardware
  if (n.interruption_notice) return Cause::Interrupted;
  // A drain fitscale started and has not finished: propose it again so the controller goes on.
  if (n.state == NodeState::Deleting) return Cause::Draining;
  // A registered node whose Ready condition says since when it is not Ready is judged by that
  // time, not by its launch: one that ran for a day and then lost its kubelet is not "not
  // Ready 24h after launch". The register timeout is for instances with no Node, or a Node
  // with no Ready condition yet.
  if (n.state == NodeState::Registered && n.not_ready_since) {
    return now - *n.not_ready_since > policy.not_ready_after_s ? Cause::NotReady : Cause::None;
  }
  if ((n.state == NodeState::InFlight || n.state == NodeState::Registered) &&
      now - launched_at(n) > policy.register_timeout_s)
    return Cause::NeverRegistered;
  // A node launched for a burst may sit empty for a while before kube-scheduler reaches the
  // pods it was launched for: not removed as empty until scaleDown.delayAfterLaunch has passed.
  if (n.state == NodeState::Ready && n.empty_since &&
      now - launched_at(n) >= policy.delay_after_launch_s) {
    const std::optional<Seconds> ttl = empty_after(n, catalog, policy);
    if (ttl && now - *n.empty_since > *ttl) return Cause::EmptyTooLong;
  }
  return Cause::None;
}

RemoveDecision decision_for(const Node& n, Cause cause, const Policy& policy, Time now) {
  RemoveDecision d;
  d.node = n.name;
  d.instance_id = n.instance_id;
  switch (cause) {
    case Cause::Interrupted:
      d.kind = RemoveReason::Interrupted;
      d.reason = "spot interruption notice";
      break;
    case Cause::Draining:
      d.kind = RemoveReason::Empty;
      d.reason = "drain in progress";
      break;
    case Cause::NotReady:
      d.kind = RemoveReason::NotReady;
      d.reason = "NotReady since " + format_rfc3339(*n.not_ready_since) + " (" +
                 short_duration(now - *n.not_ready_since) + ", scaleDown.notReadyAfter " +
                 short_duration(policy.not_ready_after_s) + ")";
      break;
    case Cause::NeverRegistered:
      d.kind = RemoveReason::NeverRegistered;
      d.reason = std::string(n.state == NodeState::InFlight ? "not registered" : "not Ready") +
                 " " + short_duration(now - launched_at(n)) + " after launch (timeout " +
                 short_duration(policy.register_timeout_s) + ")";
      break;
    case Cause::EmptyTooLong:
      d.kind = RemoveReason::Empty;
      d.reason = "empty for " + std::to_string(now - *n.empty_since) + "s";
      break;
    case Cause::None:
      break;
  }
  return d;
}

}  // namespace

std::optional<Seconds> empty_after(const Node& node, const Catalog& catalog, const Policy& policy) {
  const auto pool = node.labels.find(label::kPool);
  const Pool* p = pool == node.labels.end() ? nullptr : catalog.find_pool(pool->second);
  if (p == nullptr) return policy.empty_ttl_s;
  if (!p->scale_down.when_empty) return std::nullopt;
  return p->scale_down.empty_after.value_or(policy.empty_ttl_s);
}

ScaleDown choose_removals(const Snapshot& snapshot, const Catalog& catalog, const Policy& policy,
                          Time now, const std::vector<std::string_view>& nodes_receiving_pods,
                          const std::function<ExistingCapacity&()>& room) {
  ScaleDown out;
  // Which nodes have a reason to go is decided from the node's own fields first, and on most
  // plans no node has one (the simulator plans ~130,000 times over up to ~800 nodes): only for
  // a node that has one is the set of nodes receiving pods searched and a decision with its
  // strings built, and only then are pods grouped by node.
  struct Candidate {
    RemoveDecision d;
    Cause cause;
  };
  std::vector<Candidate> candidates;
  for (const Node& n : snapshot.nodes) {
    const Cause cause = cause_of(n, catalog, policy, now);
    if (cause == Cause::None) continue;
    if (std::binary_search(nodes_receiving_pods.begin(), nodes_receiving_pods.end(),
                           std::string_view(n.name)))
      continue;
    candidates.push_back({decision_for(n, cause, policy, now), cause});
  }
  if (candidates.empty()) return out;
  std::unordered_map<std::string_view, std::vector<std::uint32_t>> on_node;
  for (const auto& c : candidates) on_node[c.d.node];
  for (std::uint32_t i = 0; i < snapshot.pods.size(); ++i) {
    const Pod& p = snapshot.pods[i];
    if (p.node_name.empty()) continue;
    auto it = on_node.find(p.node_name);
    if (it != on_node.end()) it->second.push_back(i);
  }
  // Nodes leaving whatever their pods do are never a home for another node's pods; nor is a
  // node removed earlier in this loop. An idle node may take another's pods, and then stays.
  std::vector<std::string_view> leaving;
  for (const auto& c : candidates) {
    if (c.cause != Cause::EmptyTooLong) leaving.push_back(c.d.node);
  }
  std::vector<std::string_view> received;  // idle nodes that took relocated pods
  for (auto& [d, cause] : candidates) {
    if (std::find(received.begin(), received.end(), d.node) != received.end()) continue;
    const std::vector<std::uint32_t>& pods = on_node[d.node];
    if (cause == Cause::NotReady) {
      // Its kubelet is gone: whatever ran there is lost already, and evictions would only
      // leave pods Terminating on it. Deleting the Node lets Kubernetes collect them.
      out.remove.push_back(std::move(d));
      continue;
    }
    const bool pinned = std::any_of(pods.begin(), pods.end(),
                                    [&](std::uint32_t i) { return snapshot.pods[i].pins_node(); });
    if (pinned) continue;
    std::vector<std::uint32_t> evict;
    for (std::uint32_t i : pods) {
      if (snapshot.pods[i].evictable_service()) evict.push_back(i);
    }
    if (cause == Cause::EmptyTooLong) {
      if (const Pod* waiting = room().unjudged_pod_fitting(d.node)) {
        out.keep.push_back(
            {d.node, "pod " + waiting->key() + " waits for the scheduler and fits on it"});
        continue;
      }
    }
    if (cause == Cause::EmptyTooLong && !evict.empty()) {
      // As cluster-autoscaler's drain simulation: a node whose pods would only be evicted into
      // a launch of the same size (and then removed again, an outage each round) stays.
      std::vector<std::string_view> excluded = leaving;
      excluded.push_back(d.node);
      const Relocation r = room().relocate(evict, excluded);
      if (!r.misfit.empty()) {
        out.keep.push_back({d.node, r.misfit});
        continue;
      }
      received.insert(received.end(), r.targets.begin(), r.targets.end());
    }
    if (cause == Cause::EmptyTooLong) leaving.push_back(d.node);
    for (std::uint32_t i : evict) d.evict.push_back(snapshot.pods[i].key());
    out.remove.push_back(std::move(d));
  }
  return out;
}

}  // namespace fitscale::planner
