#pragma once
// How one node's cost over an interval is split (issue 4, "Ledger"): between the pods on it by
// their dominant share of the node's allocatable (max of CPU, memory, GPU fractions), normalised
// so the pods never get more than the whole node; the rest is idle and goes to the namespace
// whose job caused the launch. Pure integer arithmetic, so every split adds up to the node's
// cost exactly, to the micro-dollar. Shared by MemoryLedger and SqliteLedger.
#include <cstdint>
#include <string>
#include <vector>

#include "cost/ledger.h"
#include "model/dominant_share.h"
#include "model/money.h"
#include "model/resources.h"
#include "model/time.h"

namespace fitscale::cost {

// Shares (parts per billion of a node) and dominant_share() live in the model, so budget
// admission in the planner counts a namespace's use of a node exactly as the ledger charges it.
using fitscale::dominant_share;
using fitscale::kWholeNode;

// What a node running since `launched_at` at `micros_per_hour` costs during [from, to).
// Defined as metered(to) - metered(from) with metered(t) the rounded cost since launch, so
// consecutive intervals add up to exactly the cost of their union however they are cut.
Micros node_cost(Micros micros_per_hour, Time launched_at, Time from, Time to);

// Splits `total` in proportion to `weights` (their sum must be > 0): floors first, then the
// leftover micro-dollars one each to the largest remainders (ties to the lower index).
std::vector<Micros> split_exact(Micros total, const std::vector<std::int64_t>& weights);

// One pod's weight in a segment.
struct PodShare {
  std::string pod;  // "ns/name"
  std::string ns;
  std::string job;  // job key ("ns/job"); the pod itself when it belongs to no job
  std::int64_t weight = 0;
  bool operator==(const PodShare&) const = default;
};

// The pods on a node between two changes: weights normalised so that pods + idle = kWholeNode
// when the pods fit, or pods alone (idle 0) when their shares add up to more than the node.
struct Split {
  std::vector<PodShare> pods;  // sorted by pod
  std::int64_t idle_weight = kWholeNode;
  bool operator==(const Split&) const = default;
};
Split split_for(const std::vector<PodUsage>& pods, const Resources& allocatable);

// One party's part of a node's cost. Idle cost has `idle` set and no pod.
struct Charge {
  std::string ns;
  std::string job;
  std::string pod;
  bool idle = false;
  Micros micros = 0;
};

// Node cost over [from, to) split by `split`; the idle part goes to the node's owner.
// The charges' micros add up to node_cost(...) exactly. Zero charges are left out.
std::vector<Charge> attribute(const NodeCharge& node, Time launched_at, const Split& split,
                              Time from, Time to);

}  // namespace fitscale::cost
