#pragma once
// A pod's dominant share of a node: the largest of its CPU, memory and GPU requests as a fraction
// of the node's allocatable, in integer parts per billion. The one definition both the ledger
// (who pays for a node's time, src/cost/attribution.*) and budget admission (whose committed $/h a
// node counts toward, src/planner/admission.*) use, so a budget is checked against exactly what
// the ledger will charge.
#include <cstdint>

#include "model/money.h"
#include "model/resources.h"

namespace fitscale {

// Shares are in parts per billion of a node.
inline constexpr std::int64_t kWholeNode = 1'000'000'000;

// max(cpu, memory, gpu) of requests / allocatable, in parts per billion, at most kWholeNode.
// A request for a resource the node lacks counts as the whole node.
std::int64_t dominant_share(const Resources& requests, const Resources& allocatable);

// `weight` parts of `total` out of max(sum, kWholeNode), rounded down: a node's price split as the
// ledger splits its cost (over-committed pods share the whole node; what no pod uses is idle).
Micros share_of(Micros total, std::int64_t weight, std::int64_t sum);

}  // namespace fitscale
