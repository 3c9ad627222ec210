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

}  // namespace fitscale
