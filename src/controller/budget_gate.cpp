#include "controller/budget_gate.h"

#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace fitscale {

std::vector<GateRelease> gates_to_release(const Snapshot& snapshot, const Plan& plan) {
  std::vector<GateRelease> out;
  std::vector<const Pod*> held;
  for (const Pod& p : snapshot.pods) {
    if (p.held_by_budget_gate()) held.push_back(&p);
  }
  if (held.empty()) return out;

  // Where the plan serves each pod, by "ns/name": only on a Ready node. A pod the plan launches
  // for, or places on a node still booting, keeps the gate until that node is Ready: released
  // earlier, the scheduler would bind it to whatever room opens elsewhere meanwhile (another
  // team's), its team paying for that and for the node launched for it (issue 12). The plan
  // charged it the dearest Ready node it fits at release (planner::ExistingCapacity::
  // dearest_binding); a later plan places it on its node once that is Ready.
  std::unordered_set<std::string_view> ready;
  for (const Node& n : snapshot.nodes) {
    if (n.state == NodeState::Ready) ready.insert(n.name);
  }
  std::unordered_map<std::string, std::string> served;
  for (const auto& [pod, node] : plan.placements) {
    if (ready.count(node) != 0) served.emplace(pod, "on node " + node);
  }
  // Gangs with a member the plan does not serve: "ns/gang". A gang member that is unserved
  // for any reason (waiting, refused, incomplete) holds back all of them.
  std::set<std::pair<std::string, std::string>> gangs_held_back;
  for (const Pod* p : held) {
    if (p->gang && served.count(p->key()) == 0) gangs_held_back.emplace(p->ns, p->gang->name);
  }
  for (const Pod& p : snapshot.pods) {
    if (!p.gang || !p.unschedulable()) continue;
    if (served.count(p.key()) == 0) gangs_held_back.emplace(p.ns, p.gang->name);
  }
  for (const Pod* p : held) {
    auto it = served.find(p->key());
    if (it == served.end()) continue;
    if (p->gang && gangs_held_back.count({p->ns, p->gang->name}) != 0) continue;
    out.push_back(GateRelease{p->ns, p->name, p->job_key(), it->second});
  }
  return out;
}

bool release_budget_gates(const std::vector<GateRelease>& releases, ClusterView& cluster,
                          Recorder& recorder, bool dry_run) {
  bool all = true;
  for (const GateRelease& r : releases) {
    ActionRecord rec{ActionKind::Ungate,
                     r.ns + "/" + r.pod,
                     "job " + r.job + " fits its budgets " + r.where + "; gate " +
                         std::string(kBudgetGate) + " removed",
                     {{"job", r.job}, {"gate", std::string(kBudgetGate)}}};
    if (dry_run) {
      rec.fields["dry_run"] = "true";
    } else if (!cluster.remove_scheduling_gate(r.ns, r.pod, kBudgetGate)) {
      all = false;
      continue;  // the view logged why; the pod stays held and is planned again
    }
    recorder.action(rec);
  }
  return all;
}

}  // namespace fitscale
