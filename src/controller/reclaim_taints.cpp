#include "controller/reclaim_taints.h"

#include <algorithm>
#include <string>

namespace fitscale {

namespace {

Node* find_node(Snapshot& s, const std::string& name) {
  auto it =
      std::find_if(s.nodes.begin(), s.nodes.end(), [&](const Node& n) { return n.name == name; });
  return it == s.nodes.end() ? nullptr : &*it;
}

}  // namespace

bool apply_reclaim(const planner::ReclaimChange& change, Snapshot& snapshot, ClusterView& cluster,
                   Recorder& recorder, bool dry_run) {
  bool ok = true;
  const Taint taint{std::string(planner::kReclaimTaint), "true", TaintEffect::NoSchedule};
  for (const auto& name : change.taint) {
    ActionRecord rec{ActionKind::Reclaim,
                     name,
                     "its launch job ended and its free room costs far more than the pending "
                     "work it could take would cost on new nodes: new pods go elsewhere",
                     {{"taint", "added"}}};
    if (dry_run) rec.fields["dry_run"] = "true";
    recorder.action(rec);
    if (dry_run) continue;
    if (!cluster.add_taint(name, taint)) {
      ok = false;
      continue;
    }
    if (Node* n = find_node(snapshot, name)) n->taints.push_back(taint);
  }
  for (const auto& name : change.untaint) {
    ActionRecord rec{ActionKind::Reclaim,
                     name,
                     "the cheapest place for pending work, or its launch job has pods again",
                     {{"taint", "removed"}}};
    if (dry_run) rec.fields["dry_run"] = "true";
    recorder.action(rec);
    if (dry_run) continue;
    if (!cluster.remove_taint(name, std::string(planner::kReclaimTaint))) {
      ok = false;
      continue;
    }
    if (Node* n = find_node(snapshot, name)) {
      std::erase_if(n->taints, [](const Taint& t) { return t.key == planner::kReclaimTaint; });
    }
  }
  return ok;
}

}  // namespace fitscale
