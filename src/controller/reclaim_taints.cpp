#include "controller/reclaim_taints.h"

#include <algorithm>
#include <string>

namespace fitscale {

namespace {

Node* find_node(std::vector<Node>& nodes, const std::string& name) {
  auto it = std::find_if(nodes.begin(), nodes.end(), [&](const Node& n) { return n.name == name; });
  return it == nodes.end() ? nullptr : &*it;
}

Taint reclaim_taint() {
  return Taint{std::string(planner::kReclaimTaint), "true", TaintEffect::NoSchedule};
}

// As the cluster view writes it: added once, removed with every taint of its key.
void set_reclaim_taint(Node& n, bool tainted) {
  if (!tainted) {
    std::erase_if(n.taints, [](const Taint& t) { return t.key == planner::kReclaimTaint; });
    return;
  }
  const Taint taint = reclaim_taint();
  if (std::find(n.taints.begin(), n.taints.end(), taint) == n.taints.end())
    n.taints.push_back(taint);
}

}  // namespace

bool apply_reclaim(const planner::ReclaimChange& change, Snapshot& snapshot, ClusterView& cluster,
                   Recorder& recorder, bool dry_run) {
  bool ok = true;
  const Taint taint = reclaim_taint();
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
    if (Node* n = find_node(snapshot.nodes, name)) set_reclaim_taint(*n, true);
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
    if (Node* n = find_node(snapshot.nodes, name)) set_reclaim_taint(*n, false);
  }
  return ok;
}

void written_reclaim(const planner::ReclaimChange& change, std::vector<Node>& nodes) {
  for (const auto& name : change.taint) {
    if (Node* n = find_node(nodes, name)) set_reclaim_taint(*n, true);
  }
  for (const auto& name : change.untaint) {
    if (Node* n = find_node(nodes, name)) set_reclaim_taint(*n, false);
  }
}

}  // namespace fitscale
