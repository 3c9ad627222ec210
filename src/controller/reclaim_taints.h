#pragma once
// Applies planner::decide_reclaim through the cluster view (issue 18): the fitscale.io/reclaim
// NoSchedule taint added to or removed from nodes, never an eviction. The snapshot the loop
// plans with is updated to match what was written, so this loop's plan places pending pods
// where the scheduler may bind them.
#include "controller/interfaces.h"
#include "obs/recorder.h"
#include "planner/plan.h"
#include "planner/reclaim.h"

namespace fitscale {

// One `reclaim` action record per node changed (in dry run: the record only, with
// dry_run=true, and nothing written). False when a write failed: the caller plans again next
// loop.
bool apply_reclaim(const planner::ReclaimChange& change, Snapshot& snapshot, ClusterView& cluster,
                   Recorder& recorder, bool dry_run);

// What a written change leaves on `nodes` (those of the view the loop observed, so that the
// write's echo is known for one: controller/own_write_echo.h). The same edit as the snapshot's.
void written_reclaim(const planner::ReclaimChange& change, std::vector<Node>& nodes);

}  // namespace fitscale
