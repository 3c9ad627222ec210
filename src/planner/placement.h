#pragma once
// Placement of pending pods on capacity that exists or is already on its way: free room on Ready
// schedulable nodes first, then on in-flight nodes (launched, not Ready yet). Counting in-flight
// capacity is what keeps one pending pod from triggering a second launch on the next loop.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "planner/plan.h"
#include "planner/pod_class.h"

namespace fitscale::planner {

// Where scale-down's evicted pods would go, or why they cannot.
struct Relocation {
  std::string misfit;                     // empty: every pod fits
  std::vector<std::string_view> targets;  // nodes that take them
};

class ExistingCapacity {
 public:
  // `snapshot` and `gpu_models` must outlive the object (it is built and used within one plan).
  ExistingCapacity(const Snapshot& snapshot, const Policy& policy, Time now,
                   const std::vector<std::string>& gpu_models);

  // Places as many pods of `c` as fit (in the class's order) and returns the ones left over.
  std::vector<std::uint32_t> place_class(const PodClass& c,
                                         std::map<std::string, std::string>& placements);

  // Places every pod of the gang (its members' classes) on nodes of one zone, or none.
  bool place_gang(const std::vector<PodClass>& members,
                  std::map<std::string, std::string>& placements);

  // Scale-down's question, as cluster-autoscaler's drain simulation asks it: do these bound
  // pods (indexes into the snapshot's pods) all fit on Ready nodes not in `excluded`, in the
  // room this plan's placements left? If so they take that room (the next node's pods cannot
  // count on it too); if not, nothing changes and `misfit` names a pod that fits nowhere.
  Relocation relocate(const std::vector<std::uint32_t>& pods,
                      const std::vector<std::string_view>& excluded);

  bool has_nodes() const { return !slots_.empty(); }
  // Nodes that received a pod in this plan (scale-down must leave them alone), sorted.
  std::vector<std::string_view> used_nodes() const;

 private:
  struct Slot {
    const Node* node = nullptr;
    // Canonical labels: the node's own when they are canonical already (the common case, so a
    // plan copies no labels), else a rewritten copy. Found out only for nodes a pod could fit
    // on: walking every node's labels on every plan was a tenth of the simulator's time.
    mutable bool checked = false;
    mutable std::optional<Labels> rewritten;
    std::string zone;
    Resources free;
    // Pods here, for anti-affinity: the ones bound in the snapshot are bound_[bound_begin,
    // bound_end) (one list for all nodes: a list per node cost an allocation per node on every
    // plan with pods pending), the ones this plan puts here are in `placed`.
    std::uint32_t bound_begin = 0;
    std::uint32_t bound_end = 0;
    std::vector<const Pod*> placed;
    bool anti = false;  // some pod here has anti-affinity terms
    bool used = false;  // this plan put a pod here
  };
  const Labels& labels_of(const Slot& s) const;
  bool admits(const PodClass& c, const Slot& s) const;
  bool repelled(const Pod& p, const Slot& s) const;
  void put(const Pod& p, Slot& s, std::map<std::string, std::string>& placements);

  const Snapshot& snapshot_;
  const std::vector<std::string>& gpu_models_;
  std::vector<Slot> slots_;        // Ready nodes first, then in-flight; by name within each
  std::vector<const Pod*> bound_;  // bound pods grouped by slot, in snapshot order within each
};

}  // namespace fitscale::planner
