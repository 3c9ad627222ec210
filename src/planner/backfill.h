#pragma once
// Mixed-class packing. Per-class packing leaves room on every node (a CPU-bound class leaves
// memory, the floor of pods-per-node leaves a fraction of everything); here that room is filled
// with pods of smaller classes of the same namespace before those classes get nodes of their
// own, largest class first (first-fit decreasing over classes). It only ever removes pods from
// later classes, so the plan costs at most what budget admission priced.
#include <cstdint>
#include <optional>
#include <vector>

#include "model/catalog.h"
#include "planner/packing.h"
#include "planner/pod_class.h"

namespace fitscale::planner {

struct MixedGroup {
  std::size_t lead_class = 0;  // the class the nodes were chosen for
  NewNodes nodes;              // pods of the lead class and of the classes that filled in
};

std::vector<MixedGroup> pack_mixed(const std::vector<PodClass>& classes,
                                   const std::vector<std::optional<ClassPacker>>& packers,
                                   std::vector<std::vector<std::uint32_t>> admitted,
                                   const Catalog& catalog);

}  // namespace fitscale::planner
