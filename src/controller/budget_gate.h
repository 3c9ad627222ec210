#pragma once
// The budget gate's release (issue 12): which pods held by fitscale.io/budget the plan admitted,
// so the controller removes their gate. The plan decides admission (src/planner/admission.cpp:
// jobs in scheduling order, each charged to the book before the next is asked, so two jobs
// that each fit but not together are never both admitted); this only reads its verdict.
#include <string>
#include <vector>

#include "controller/interfaces.h"
#include "obs/recorder.h"
#include "planner/plan.h"

namespace fitscale {

struct GateRelease {
  std::string ns;
  std::string pod;    // name
  std::string job;    // Pod::job_key()
  std::string where;  // "on node N": for the log
};

// A pod held by the budget gate (Pod::held_by_budget_gate) is released when the plan places it
// on a Ready node; one it launches for or places on a node still booting stays held until that
// node is Ready (a later plan places it there). A gang is released whole or
// not at all: none of its pods when any of its pods is left unserved. Pods the plan leaves
// waiting or refused keep the gate; their BudgetWait / BudgetRefused event says why. In the
// order of the snapshot's pods (deterministic).
std::vector<GateRelease> gates_to_release(const Snapshot& snapshot, const Plan& plan);

// Removes each release's gate through the cluster view, with one `ungate` log line per pod (in
// dry run: the line only, with dry_run=true). False when a removal failed: the pod is still
// held, and the caller plans again next loop.
bool release_budget_gates(const std::vector<GateRelease>& releases, ClusterView& cluster,
                          Recorder& recorder, bool dry_run);

}  // namespace fitscale
