#pragma once
// Placement of pending pods on capacity that exists or is already on its way: free room on Ready
// schedulable nodes first, then on in-flight nodes (launched, not Ready yet). Counting in-flight
// capacity is what keeps one pending pod from triggering a second launch on the next loop.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/money.h"
#include "planner/plan.h"
#include "planner/pod_class.h"
#include "planner/predicates.h"

namespace fitscale::planner {

// Where scale-down's evicted pods would go, or why they cannot.
struct Relocation {
  std::string misfit;                     // empty: every pod fits
  std::vector<std::string_view> targets;  // nodes that take them
};

// One pod this plan put on an existing or in-flight node, so that a job's placements can be
// priced for its budget and undone when the job is refused.
struct Placement {
  std::uint32_t pod = 0;        // into the snapshot's pods
  std::uint32_t slot = 0;       // into the capacity's nodes
  std::uint32_t candidate = 0;  // its place in the class's candidates (for ClassCursor)
  std::int64_t weight = 0;      // the part of the node it is charged for (parts per billion)
  Micros micros_per_hour = 0;   // that part of the node's price, when the node is another's
  std::string_view owner;       // that other namespace, whose idle part it was
};

// Where one class's pods look for room, kept from one of its jobs to the next (see place_pods).
struct ClassCursor {
  bool built = false;
  std::vector<std::uint32_t> candidates;
  std::size_t cursor = 0;
};

class ExistingCapacity {
 public:
  // `snapshot` and `gpu_models` must outlive the object (it is built and used within one plan).
  ExistingCapacity(const Snapshot& snapshot, const Policy& policy, Time now,
                   const std::vector<std::string>& gpu_models);

  // Places as many pods of `c` as fit (in the class's order) and returns the ones left over.
  std::vector<std::uint32_t> place_class(const PodClass& c,
                                         std::map<std::string, std::string>& placements);

  // Places as many of `pods` (pods of class `c`, in order) as fit, appends what it placed to
  // `done` and returns the ones left over. `cursor` carries the class's candidate nodes from one
  // call to the next, so placing a class job by job costs what placing it at once does.
  std::vector<std::uint32_t> place_pods(const PodClass& c, const std::vector<std::uint32_t>& pods,
                                        ClassCursor& cursor,
                                        std::map<std::string, std::string>& placements,
                                        std::vector<Placement>& done);

  // Places every pod of the gang (its members' classes) on nodes of one zone, or none.
  bool place_gang(const std::vector<PodClass>& members,
                  std::map<std::string, std::string>& placements,
                  std::vector<Placement>* done = nullptr);

  // Takes back placements (a job refused by its budget): the room is free again, the pods
  // unplaced. Cursors of the classes involved must be rewound by the caller (rewind()).
  void undo(const std::vector<Placement>& done, std::map<std::string, std::string>& placements);
  static void rewind(ClassCursor& cursor, const Placement& p) {
    cursor.cursor = std::min<std::size_t>(cursor.cursor, p.candidate);
  }

  // Scale-down's question, as cluster-autoscaler's drain simulation asks it: do these bound
  // pods (indexes into the snapshot's pods) all fit on Ready nodes not in `excluded`, in the
  // room this plan's placements left? If so they take that room (the next node's pods cannot
  // count on it too); if not, nothing changes and `misfit` names a pod that fits nowhere.
  Relocation relocate(const std::vector<std::uint32_t>& pods,
                      const std::vector<std::string_view>& excluded);

  // A pod the scheduler has yet to judge (Pod::waits_for_scheduler, no verdict yet) that fits
  // the free room of `node`, or nullptr: kube-scheduler may bind it there any moment, so an
  // empty node it fits is not removed (a burst keeps the scheduler minutes behind). Pods it
  // judged Unschedulable already are this plan's to place; one it did not place (its budget
  // holds it) does not keep a node alive.
  const Pod* unjudged_pod_fitting(std::string_view node);

  // The most a pod of class `c` may cost its namespace per hour wherever kube-scheduler can
  // bind it the moment it is released from the budget gate: over every Ready node whose room
  // now (bound pods only: the scheduler does not follow this plan's placements) fits it and
  // admits it, its full dominant share of the price of a node another namespace launched
  // (a node of its own namespace is committed to it already, whole). An admitted pod goes where
  // the scheduler puts it, not where the plan assumed, and a team whose pod leaves its own
  // node idle to ride on another's pays for both (issue 12). Anti-affinity is not looked at:
  // counting a node it would repel errs on the safe side.
  Micros dearest_binding(const PodClass& c) const;

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
    Resources free_now;  // before this plan's placements (dearest_binding)
    // Pods here, for anti-affinity: the ones bound in the snapshot are bound_[bound_begin,
    // bound_end) (one list for all nodes: a list per node cost an allocation per node on every
    // plan with pods pending), the ones this plan puts here are in `placed`.
    std::uint32_t bound_begin = 0;
    std::uint32_t bound_end = 0;
    std::vector<const Pod*> placed;
    bool anti = false;  // some pod here has anti-affinity terms
    // Sum of the dominant shares of the charged pods here (bound and placed), as the ledger
    // will split the node's price: what is above it is idle, charged to the owner.
    std::int64_t weight = 0;
  };
  const Labels& labels_of(const Slot& s) const;
  // The slot as the feasibility check sees it, with `free` as its room (free or free_now).
  NodeSide side(const Slot& s, const Resources& free, bool coming_counts) const;
  // The check's static half for the class (node state, labels, capacity type, taints).
  bool admits(const PodClass& c, const Slot& s) const;
  // The check's dynamic half for pod `p` of class `c` (room, pods on the node).
  Misfit misfit_on(const PodClass& c, const Pod& p, const Slot& s) const;
  Placement put(std::uint32_t pi, std::uint32_t slot,
                std::map<std::string, std::string>& placements);

  const Snapshot& snapshot_;
  const std::vector<std::string>& gpu_models_;
  std::vector<Slot> slots_;        // Ready nodes first, then in-flight; by name within each
  std::vector<const Pod*> bound_;  // bound pods grouped by slot, in snapshot order within each
  std::optional<std::vector<PodClass>> unjudged_;  // built on first use by unjudged_pod_fitting
};

}  // namespace fitscale::planner
