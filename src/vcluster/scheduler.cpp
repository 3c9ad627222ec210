#include "vcluster/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "model/error.h"
#include "model/time.h"
#include "planner/pod_class.h"
#include "planner/predicates.h"
#include "vcluster/api_error.h"
#include "vcluster/events.h"
#include "vcluster/object_meta.h"
#include "vcluster/scheduling_view.h"

namespace fitscale::vcluster {
namespace {

struct NodeSlot {
  Node node;
  Labels canonical;
  Resources used;
  std::vector<const Pod*> residents;
  std::vector<Pod> placed;  // tentatively placed this pass
  // A resident or placed pod has anti-affinity terms: every pod is checked against them here.
  bool repels = false;
};

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

// Why a pod does not fit on one node, as kube-scheduler words it.
std::string misfit(const Pod& pod, const NodeSlot& slot) {
  if (slot.node.state != NodeState::Ready) return "node(s) were not ready";
  if (slot.node.unschedulable) return "node(s) were unschedulable";
  if (!planner::labels_admit(pod.node_selector, pod.required_node_affinity, slot.canonical)) {
    return "node(s) didn't match Pod's node affinity/selector";
  }
  if (const Taint* t = first_untolerated(pod.tolerations, slot.node.taints)) {
    return fmt::format("node(s) had untolerated taint {{{}: {}}}", t->key, t->value);
  }
  const Resources avail = slot.node.allocatable - slot.used;
  if (!planner::fits(pod.requests, avail)) {
    return "Insufficient " + pod.requests.first_shortfall(avail);
  }
  for (const Pod* r : slot.residents) {
    if (r->ns == pod.ns && planner::anti_affinity_conflict(pod, *r)) {
      return "node(s) didn't match pod anti-affinity rules";
    }
  }
  for (const Pod& r : slot.placed) {
    if (r.ns == pod.ns && planner::anti_affinity_conflict(pod, r)) {
      return "node(s) didn't match pod anti-affinity rules";
    }
  }
  return "";
}

std::optional<std::pair<std::string, std::int64_t>> gang_of(const Pod& pod) {
  for (auto key : {label::kGang, label::kPodGroup}) {
    auto it = pod.labels.find(key);
    if (it == pod.labels.end()) continue;
    std::int64_t size = 1;
    if (auto s = pod.labels.find(label::kGangSize); s != pod.labels.end()) {
      size = std::atoll(s->second.c_str());
    } else if (auto a = pod.annotations.find(annotation::kGangSize); a != pod.annotations.end()) {
      size = std::atoll(a->second.c_str());
    }
    return std::make_pair(pod.ns + "/" + it->second, std::max<std::int64_t>(size, 1));
  }
  return std::nullopt;
}

// Most-allocated first: the node where the pod leaves the least room, so pods pack onto nodes
// the way the planner packed them and empty nodes stay empty (and get removed).
NodeSlot* best_node(const Pod& pod, std::vector<NodeSlot>& slots, std::map<std::string, int>& why) {
  NodeSlot* best = nullptr;
  double best_share = -1;
  for (auto& s : slots) {
    std::string reason = misfit(pod, s);
    if (!reason.empty()) {
      ++why[reason];
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
  for (std::uint32_t i : admitting) {
    NodeSlot& s = slots[i];
    if (!planner::fits(pod.requests, s.node.allocatable - s.used)) continue;
    if (s.repels && !misfit(pod, s).empty()) continue;
    const double share = planner::dominant_share(s.used + pod.requests, s.node.allocatable);
    if (share > best_share) {
      best_share = share;
      best = &s;
    }
  }
  return best;
}

bool admits_statically(const Pod& pod, const NodeSlot& slot) {
  return slot.node.state == NodeState::Ready && !slot.node.unschedulable &&
         planner::labels_admit(pod.node_selector, pod.required_node_affinity, slot.canonical) &&
         first_untolerated(pod.tolerations, slot.node.taints) == nullptr;
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
  for (const auto& shared_pod : pods) {
    const nlohmann::json& pj = *shared_pod;
    const std::string phase = pod_phase(pj);
    if (phase == "Succeeded" || phase == "Failed") continue;
    Pod p;
    try {
      p = pod_for_scheduling(pj, gpu_models);
    } catch (const InputError& e) {
      continue;  // never schedulable; kubectl describe shows the spec as written
    }
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
  for (const Pod& p : bound) {
    auto it = slot_by_name.find(p.node_name);
    if (it == slot_by_name.end()) continue;
    slots[it->second].used += p.requests;
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
    if (auto g = gang_of(p)) ++gang_members[g->first];
  }
  for (const auto& pp : pending) {
    if (auto g = gang_of(pp.pod)) ++gang_members[g->first];
  }

  // Units of scheduling: one pod, or every pending member of a gang.
  std::vector<std::vector<PendingPod*>> units;
  std::map<std::string, std::size_t> unit_of_gang;
  for (auto& pp : pending) {
    auto g = gang_of(pp.pod);
    if (!g) {
      units.push_back({&pp});
      continue;
    }
    auto [it, fresh] = unit_of_gang.emplace(g->first, units.size());
    if (fresh) units.emplace_back();
    units[it->second].push_back(&pp);
  }

  for (auto& unit : units) {
    std::map<std::string, int> why;
    std::vector<std::pair<PendingPod*, NodeSlot*>> placed;
    std::string failure;
    if (auto g = gang_of(unit.front()->pod); g && gang_members[g->first] < g->second) {
      failure =
          fmt::format("gang {} has {} of {} members", g->first, gang_members[g->first], g->second);
    }
    const bool lone = unit.size() == 1 && !gang_of(unit.front()->pod);
    for (auto* pp : unit) {
      if (!failure.empty()) break;
      NodeSlot* slot = nullptr;
      ClassCache& cache = caches[class_of[static_cast<std::size_t>(pp - pending.data())]];
      if (lone && pp->pod.anti_affinity_hostname.empty()) {
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
      slot->used += pp->pod.requests;
      slot->placed.push_back(pp->pod);
      if (!pp->pod.anti_affinity_hostname.empty()) slot->repels = true;
      placed.emplace_back(pp, slot);
    }
    if (!failure.empty()) {
      // All or nothing: give back what this unit took.
      for (auto& [pp, slot] : placed) {
        slot->used -= pp->pod.requests;
        slot->placed.pop_back();
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
