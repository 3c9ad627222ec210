#pragma once
// Equivalence classes: pods of one namespace with identical requests and scheduling
// requirements. The planner's cost grows with classes x offerings, not with pods.
#include <cstdint>
#include <string>
#include <vector>

#include "model/labels.h"
#include "model/pod.h"

namespace fitscale::planner {

struct PodClass {
  const Pod* exemplar = nullptr;
  std::vector<std::uint32_t> pods;  // indexes into the snapshot's pods, in scheduling order
  // Canonical forms (label aliases resolved against the catalog's GPU models).
  Labels node_selector;
  std::vector<NodeSelectorTerm> affinity;
  bool has_anti_affinity = false;
  bool self_anti_affinity = false;  // its pods repel each other: at most one per node
  bool on_demand_only = false;
};

// Groups `order` (indexes into `pods`, already in scheduling order) into classes; classes come
// out in order of their first pod, and pods keep their order inside a class.
std::vector<PodClass> build_classes(const std::vector<Pod>& pods,
                                    const std::vector<std::uint32_t>& order,
                                    const std::vector<std::string>& gpu_models);

}  // namespace fitscale::planner
