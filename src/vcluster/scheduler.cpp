#include "vcluster/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "kube/pod_group_codec.h"
#include "kube/volume_topology.h"
#include "model/error.h"
#include "model/pod_group.h"
#include "model/time.h"
#include "planner/pod_class.h"
#include "planner/predicates.h"
#include "planner/topology_filter.h"
#include "vcluster/api_error.h"
#include "vcluster/events.h"
#include "vcluster/object_meta.h"
#include "vcluster/scheduling_view.h"

namespace fitscale::vcluster {
namespace {

// Where the store keeps PodGroup objects: custom resources are stored by plural.group.
constexpr const char* kPodGroupStorage = "podgroups.scheduling.x-k8s.io";

struct NodeSlot {
  Node node;
  Labels canonical;
  Resources used;
  Resources free;  // allocatable - used, kept so the check allocates nothing
  std::vector<const Pod*> residents;
  std::vector<const Pod*> placed;  // tentatively placed this pass (pending pods)
  // A resident or placed pod has anti-affinity terms: every pod is checked against them here.
  bool repels = false;
};

// The slot as the planner's feasibility check sees it: a binder binds to Ready nodes only.
planner::NodeSide side_of(const NodeSlot& s) {
  return planner::NodeSide{s.node, s.canonical, s.free, s.residents, s.placed, s.repels, false};
}

void take(NodeSlot& s, const Pod& p) {
  s.used += p.requests;
  s.free -= p.requests;
  s.placed.push_back(&p);
  if (!p.anti_affinity_hostname.empty()) s.repels = true;
}

void give_back(NodeSlot& s, const Pod& p) {
  s.used -= p.requests;
  s.free += p.requests;
  s.placed.pop_back();
}

// What one pass knows of a class of identical pending pods (planner::build_classes): the nodes
// whose state, labels and taints admit it (only room changes during a pass), and, once one of
// its pods found no node, why (room only shrinks, so later pods of the class find none either
// unless a gang gave room back: `epoch`). A burst of 50,000 pods is a few classes: the pass no
// longer checks, with a message string per node, every pending pod against every node.
struct ClassCache {
  bool indexed = false;
  std::vector<std::uint32_t> admitting;  // slot indexes
  std::string failure;
  std::uint64_t failure_epoch = 0;
};

struct PendingPod {
  nlohmann::json json;
  Pod pod;
};

// The coscheduling PodGroups in the store (none when their CRD is not installed); one that
// does not decode sizes nothing, as the planner's informer skips it.
std::vector<PodGroupView> pod_groups(const ObjectStore& store) {
  std::vector<PodGroupView> out;
  for (const auto& g : store.list_shared(kPodGroupStorage).items) {
    try {
      out.push_back(decode_pod_group(*g));
    } catch (const InputError&) {
      continue;
    }
  }
  return out;
}

// The stored claims and volumes, decoded as `fitscale run`'s informers decode them; one that
// does not decode is skipped (its pods are then placed as if it constrained nothing).
template <class T>
std::vector<T> stored_views(const ObjectStore& store, const char* resource,
                            T (*decode)(const nlohmann::json&)) {
  std::vector<T> out;
  for (const auto& o : store.list_shared(resource).items) {
    try {
      out.push_back(decode(*o));
    } catch (const InputError&) {
      continue;
    }
  }
  return out;
}

// The gang a pod belongs to, as the planner reads it (the decoder's Gang, sized by its PodGroup
// object when there is one): "ns/name", or nullopt for a pod on its own.
std::optional<std::string> gang_key(const Pod& pod) {
  if (!pod.gang) return std::nullopt;
  return pod.ns + "/" + pod.gang->name;
}

// Most-allocated first: the node where the pod leaves the least room, so pods pack onto nodes
// the way the planner packed them and empty nodes stay empty (and get removed). `topology`: the
// pod's required topology constraints against the pods placed so far (kube-scheduler filters
// them after the feasibility check), or null when no pod in the pass has any.
NodeSlot* best_node(const Pod& pod, std::vector<NodeSlot>& slots, std::map<std::string, int>& why,
                    const planner::TopologyFilter::Verdict* topology = nullptr) {
  NodeSlot* best = nullptr;
  double best_share = -1;
  const planner::PodNeeds needs = planner::needs_of(pod);
  for (auto& s : slots) {
    planner::Misfit m = planner::misfit(needs, side_of(s));
    if (!m && topology) m = planner::TopologyFilter::check(*topology, s.canonical);
    if (m) {
      ++why[planner::scheduler_reason(m)];
      continue;
    }
    double share = planner::dominant_share(s.used + pod.requests, s.node.allocatable);
    if (share > best_share) {
      best_share = share;
      best = &s;
    }
  }
  return best;
}

// best_node for a pod without anti-affinity terms of a class whose admitting nodes are known:
// only room (and other pods' anti-affinity, rare) is checked per node.
NodeSlot* best_admitting_node(const Pod& pod, const std::vector<std::uint32_t>& admitting,
                              std::vector<NodeSlot>& slots) {
  NodeSlot* best = nullptr;
  double best_share = -1;
  const planner::PodNeeds needs = planner::needs_of(pod);
  for (std::uint32_t i : admitting) {
    NodeSlot& s = slots[i];
    if (planner::dynamic_misfit(needs, side_of(s))) continue;
    const double share = planner::dominant_share(s.used + pod.requests, s.node.allocatable);
    if (share > best_share) {
      best_share = share;
      best = &s;
    }
  }
  return best;
}

bool admits_statically(const Pod& pod, const NodeSlot& slot) {
  return !planner::static_misfit(planner::needs_of(pod), side_of(slot));
}

std::string unschedulable_message(std::size_t nodes, const std::map<std::string, int>& why) {
  std::string msg = fmt::format("0/{} nodes are available", nodes);
  std::string sep = ": ";
  for (const auto& [reason, n] : why) {
    msg += sep + fmt::format("{} {}", n, reason);
    sep = ", ";
  }
  return msg + ".";
}

void set_condition(nlohmann::json& pod, const std::string& status, const std::string& reason,
                   const std::string& message, const std::string& now) {
  auto& conds = pod["status"]["conditions"];
  if (!conds.is_array()) conds = nlohmann::json::array();
  for (auto& c : conds) {
    if (c.value("type", "") == "PodScheduled") {
      if (c.value("status", "") == status && c.value("reason", "") == reason &&
          c.value("message", "") == message) {
        return;
      }
      c = {{"type", "PodScheduled"}, {"status", status}, {"lastTransitionTime", now}};
      if (!reason.empty()) c["reason"] = reason;
      if (!message.empty()) c["message"] = message;
      return;
    }
  }
  nlohmann::json c = {{"type", "PodScheduled"}, {"status", status}, {"lastTransitionTime", now}};
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  conds.push_back(c);
}

}  // namespace

SchedulerPass schedule_pending_pods(ObjectStore& store, const Clock& clock,
                                    const std::vector<std::string>& gpu_models) {
  SchedulerPass pass;
  const auto pods = store.list_shared("pods").items;  // read only; copied only when pending
  // Nothing to bind (the steady state of a full cluster): skip decoding every pod and node.
  const bool any_pending = std::any_of(pods.begin(), pods.end(), [](const StoredObject& pj) {
    const std::string phase = pod_phase(*pj);
    return pod_node(*pj).empty() && phase != "Succeeded" && phase != "Failed" &&
           !is_terminating(*pj);
  });
  if (!any_pending) return pass;
  const std::string now = format_rfc3339(clock.now());
  std::vector<NodeSlot> slots;
  std::map<std::string, std::size_t> slot_by_name;
  for (const auto& shared_node : store.list_shared("nodes").items) {
    const nlohmann::json& nj = *shared_node;
    try {
      NodeSlot s;
      s.node = node_for_scheduling(nj, gpu_models);
      s.canonical = planner::canonical_labels(s.node.labels, gpu_models);
      s.free = s.node.allocatable;
      slot_by_name[s.node.name] = slots.size();
      slots.push_back(std::move(s));
    } catch (const InputError&) {
      // A node with malformed allocatable takes no pods.
    }
  }
  std::vector<Pod> bound;
  std::vector<PendingPod> pending;
  std::vector<nlohmann::json> gated;
  bound.reserve(pods.size());
  std::vector<Pod> live;
  std::vector<const nlohmann::json*> live_json;
  for (const auto& shared_pod : pods) {
    const nlohmann::json& pj = *shared_pod;
    // Pod::finished read off the JSON, before decoding: a cluster keeps many finished pods.
    const std::string phase = pod_phase(pj);
    if (phase == "Succeeded" || phase == "Failed") continue;
    try {
      Pod p = pod_for_scheduling(pj, gpu_models);
      live.push_back(std::move(p));
      live_json.push_back(&pj);
    } catch (const InputError& e) {
      continue;  // never schedulable; kubectl describe shows the spec as written
    }
  }
  // Coscheduling gangs take their size from their PodGroup objects, as the planner's do. The
  // scheduler here is kube-scheduler with the coscheduling plugin: it binds the pods of a JobSet
  // or a Volcano PodGroup one by one, as kube-scheduler does (Volcano's own scheduler is not
  // simulated), so only the planner treats those as gangs.
  apply_pod_groups(live, pod_groups(store));
  forget_unsized_gangs(live, GangSizer::JobSet);
  forget_unsized_gangs(live, GangSizer::VolcanoPodGroup);
  // A pod whose claim is bound to a zonal volume goes to that zone (VolumeZone, below).
  apply_volume_zones(live, stored_views(store, "persistentvolumeclaims", &decode_claim),
                     stored_views(store, "persistentvolumes", &decode_volume));
  for (std::size_t i = 0; i < live.size(); ++i) {
    const nlohmann::json& pj = *live_json[i];
    Pod p = std::move(live[i]);
    if (!p.node_name.empty()) {
      bound.push_back(std::move(p));
      continue;
    }
    if (p.terminating) continue;
    const std::string scheduler = pj["spec"].value("schedulerName", "default-scheduler");
    if (scheduler != "default-scheduler") continue;
    if (p.scheduling_gated()) {
      // kube-scheduler never binds a gated pod (Kueue holds every workload it has not admitted
      // this way); the pod says why it waits, as kube-apiserver marks it.
      gated.push_back(pj);
      continue;
    }
    pending.push_back(PendingPod{pj, std::move(p)});
  }
  for (const auto& pj : gated) {
    try {
      store.mutate("pods", namespace_of(pj), name_of(pj), [&](nlohmann::json& pod) {
        if (!pod_node(pod).empty()) return;
        set_condition(pod, "False", "SchedulingGated",
                      "Scheduling is blocked due to non-empty scheduling gates", now);
      });
    } catch (const ApiError&) {
      // deleted meanwhile
    }
  }
  // Topology spread and pod (anti-)affinity, checked only when some pod asks for them: a pending
  // pod's constraints, or a bound pod's anti-affinity (it refuses pods of every kind).
  const bool topology_on =
      std::any_of(pending.begin(), pending.end(),
                  [](const PendingPod& pp) { return pp.pod.constraints.any(); }) ||
      std::any_of(bound.begin(), bound.end(),
                  [](const Pod& p) { return !p.constraints.anti_affinity.empty(); });
  std::vector<planner::TopologyFilter::NodeRef> topology_nodes;
  if (topology_on) {
    topology_nodes.reserve(slots.size());
    for (const NodeSlot& s : slots) topology_nodes.push_back({&s.node, &s.canonical});
  }
  planner::TopologyFilter topology(std::move(topology_nodes));
  auto slot_index = [&](const NodeSlot* s) { return static_cast<std::size_t>(s - slots.data()); };
  for (const Pod& p : bound) {
    auto it = slot_by_name.find(p.node_name);
    if (it == slot_by_name.end()) continue;
    if (topology_on) topology.add(p, it->second);
    slots[it->second].used += p.requests;
    slots[it->second].free -= p.requests;
    slots[it->second].residents.push_back(&p);
    if (!p.anti_affinity_hostname.empty()) slots[it->second].repels = true;
  }
  std::stable_sort(pending.begin(), pending.end(), [](const PendingPod& a, const PendingPod& b) {
    if (a.pod.priority != b.pod.priority) return a.pod.priority > b.pod.priority;
    return meta_string(a.json, "creationTimestamp") < meta_string(b.json, "creationTimestamp");
  });
  // Classes of identical pending pods, and each pending pod's class.
  std::vector<std::uint32_t> class_of(pending.size());
  std::vector<ClassCache> caches;
  {
    std::vector<Pod> pending_pods;
    pending_pods.reserve(pending.size());
    for (const auto& pp : pending) pending_pods.push_back(pp.pod);
    std::vector<std::uint32_t> order(pending.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto classes = planner::build_classes(pending_pods, order, gpu_models);
    for (std::uint32_t ci = 0; ci < classes.size(); ++ci) {
      for (std::uint32_t pi : classes[ci].pods) class_of[pi] = ci;
    }
    caches.resize(classes.size());
  }
  std::uint64_t epoch = 1;  // moves when a gang gives room back: cached failures are stale

  // Gang members present (bound or pending), to hold back incomplete gangs.
  std::map<std::string, std::int64_t> gang_members;
  for (const Pod& p : bound) {
    if (auto g = gang_key(p)) ++gang_members[*g];
  }
  for (const auto& pp : pending) {
    if (auto g = gang_key(pp.pod)) ++gang_members[*g];
  }

  // Units of scheduling: one pod, or every pending member of a gang.
  std::vector<std::vector<PendingPod*>> units;
  std::map<std::string, std::size_t> unit_of_gang;
  for (auto& pp : pending) {
    auto g = gang_key(pp.pod);
    if (!g) {
      units.push_back({&pp});
      continue;
    }
    auto [it, fresh] = unit_of_gang.emplace(*g, units.size());
    if (fresh) units.emplace_back();
    units[it->second].push_back(&pp);
  }

  for (auto& unit : units) {
    std::map<std::string, int> why;
    std::vector<std::pair<PendingPod*, NodeSlot*>> placed;
    std::string failure;
    const Pod& first = unit.front()->pod;
    if (auto g = gang_key(first); g && first.gang->size_unknown) {
      // The coscheduling plugin denies a group's pods until its PodGroup says its size.
      failure = pod_group_missing_reason(first.ns, first.gang->name);
    } else if (g && gang_members[*g] < first.gang->size) {
      failure = fmt::format("gang {} has {} of {} members", *g, gang_members[*g], first.gang->size);
    }
    const bool lone = unit.size() == 1 && !first.gang;
    for (auto* pp : unit) {
      if (!failure.empty()) break;
      NodeSlot* slot = nullptr;
      ClassCache& cache = caches[class_of[static_cast<std::size_t>(pp - pending.data())]];
      if (topology_on) {
        const planner::TopologyFilter::Verdict verdict = topology.verdict(pp->pod);
        slot = best_node(pp->pod, slots, why, &verdict);
      } else if (lone && pp->pod.anti_affinity_hostname.empty()) {
        if (cache.failure_epoch == epoch) {
          failure = cache.failure;
          break;
        }
        if (!cache.indexed) {
          for (std::uint32_t i = 0; i < slots.size(); ++i) {
            if (admits_statically(pp->pod, slots[i])) cache.admitting.push_back(i);
          }
          cache.indexed = true;
        }
        slot = best_admitting_node(pp->pod, cache.admitting, slots);
      } else {
        slot = best_node(pp->pod, slots, why);
      }
      if (!slot) {
        if (why.empty()) best_node(pp->pod, slots, why);  // the fast path counts no reasons
        failure = unschedulable_message(slots.size(), why);
        if (lone) {
          cache.failure = failure;
          cache.failure_epoch = epoch;
        }
        break;
      }
      take(*slot, pp->pod);
      if (topology_on) topology.add(pp->pod, slot_index(slot));
      placed.emplace_back(pp, slot);
    }
    if (!failure.empty()) {
      // All or nothing: give back what this unit took.
      for (auto it = placed.rbegin(); it != placed.rend(); ++it) {
        give_back(*it->second, it->first->pod);
        if (topology_on) topology.remove(it->first->pod, slot_index(it->second));
      }
      if (!placed.empty()) ++epoch;
      for (auto* pp : unit) {
        bool newly = false;
        try {
          store.mutate("pods", pp->pod.ns, pp->pod.name, [&](nlohmann::json& pod) {
            if (!pod_node(pod).empty()) return;
            nlohmann::json before = pod;
            set_condition(pod, "False", "Unschedulable", failure, now);
            newly = pod != before;
          });
        } catch (const ApiError&) {
          continue;  // deleted meanwhile
        }
        ++pass.unschedulable;
        if (newly)
          record_event(store, clock, pp->json, "Warning", "FailedScheduling", failure,
                       "default-scheduler");
      }
      continue;
    }
    for (auto& [pp, placed_slot] : placed) {
      auto* slot = placed_slot;  // a lambda cannot capture a structured binding in C++20
      try {
        store.mutate("pods", pp->pod.ns, pp->pod.name, [&](nlohmann::json& pod) {
          if (!pod_node(pod).empty() || is_terminating(pod)) return;
          pod["spec"]["nodeName"] = slot->node.name;
          set_condition(pod, "True", "", "", now);
        });
      } catch (const ApiError&) {
        continue;
      }
      ++pass.bound;
      record_event(store, clock, pp->json, "Normal", "Scheduled",
                   fmt::format("Successfully assigned {}/{} to {}", pp->pod.ns, pp->pod.name,
                               slot->node.name),
                   "default-scheduler");
    }
  }
  return pass;
}

}  // namespace fitscale::vcluster
