#pragma once
// The evictions the baselines make and fitscale never does (docs/simulator.md, "Baselines"):
// cluster-autoscaler's utilisation scale-down and Karpenter's consolidation
// (WhenEmptyOrUnderutilized) and expiry. Each pass names the nodes to drain now; the engine
// evicts their pods (a job without checkpoints starts again from zero) and terminates them.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/time.h"
#include "sim/sim_cluster.h"

namespace fitscale {

struct DisruptionRules {
  enum class Mode {
    None,           // fitscale: a node goes only when empty (the controller's scale-down)
    Utilisation,    // cluster-autoscaler: under the threshold for `unneeded_s`, pods fit elsewhere
    Consolidation,  // Karpenter: its pods fit on the other nodes (deletion consolidation)
  };
  Mode mode = Mode::None;
  // cluster-autoscaler --scale-down-utilization-threshold (and the GPU one): requests over
  // allocatable, the larger of cpu and memory, or GPUs alone on a GPU node.
  double utilisation_threshold = 0.5;
  Seconds unneeded_s = 0;                 // --scale-down-unneeded-time / consolidateAfter
  std::optional<Seconds> expire_after_s;  // Karpenter expireAfter: drained at this age, always
  // At most this many nodes drained per pass (cluster-autoscaler
  // --max-scale-down-parallelism), and at most this share of the nodes (a Karpenter
  // NodePool's default disruption budget, nodes: 10%); 0 = no such limit.
  std::size_t max_per_pass = 0;
  double max_share = 0;
};

// The rules of each policy (Fitscale: Mode::None).
DisruptionRules disruption_rules(PolicyKind kind);

struct Disruption {
  std::string node;
  std::string reason;  // "underutilized", "consolidated", "expired"
};

class Disruptor {
 public:
  explicit Disruptor(DisruptionRules rules) : rules_(rules) {}
  // Ready nodes with pods to drain at `now` (expiry counts from each Node's creation).
  std::vector<Disruption> choose(const SimCluster& cluster, Time now);

 private:
  DisruptionRules rules_;
  std::map<std::string, Time> candidate_since_;  // node -> since when it qualifies
};

// Requests over allocatable as cluster-autoscaler counts utilisation: GPUs alone on a node
// with GPUs, else the larger of the cpu and memory fractions.
double node_utilisation(const SimNode& n);

}  // namespace fitscale
