#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/budget.h"
#include "model/catalog.h"
#include "model/node.h"
#include "model/pod.h"
#include "model/time.h"

namespace fitscale {

// Everything the planner may look at: one consistent view of the cluster and the cloud.
struct Snapshot {
  std::vector<Node> nodes;  // ready, registered and in-flight (state says which)
  std::vector<Pod> pods;    // all pods; pending = Pod::unschedulable()
  std::map<std::string, NamespaceSpend, std::less<>> spend;  // by namespace, from the ledger
};

// How the planner picks among the offerings a class may use: the cheapest fit (fitscale and
// Karpenter), or cluster-autoscaler's least-waste expander (planner/least_waste.h).
enum class OfferingPick { Cheapest, LeastWaste };

// How to decide. Defaults are what a user gets with no config.
struct Policy {
  std::vector<std::string> zones = {"us-east-1a", "us-east-1b", "us-east-1c"};
  std::string pool = "default";
  Seconds empty_ttl_s = 60;          // an empty node is removed after this long
  Seconds register_timeout_s = 900;  // an instance that has not registered by then is removed
  Seconds not_ready_after_s =
      1200;  // a node NotReady this long is removed (scaleDown.notReadyAfter)
  Seconds delay_after_launch_s = 300;  // never removed as empty sooner after launch
  // A node whose launch job ended is tainted fitscale.io/reclaim while its free room costs more
  // than this many times the pending work that would fill it (planner/reclaim.h); 0: never.
  double reclaim_factor = 2.0;
  Budgets budgets = safe_default_budgets();
  bool enforce_budgets = true;
  // Offerings currently backed off after a launch failure (Offering::key()).
  std::set<std::string, std::less<>> unavailable_offerings;
  // The baselines `fitscale simulate` compares against (planner/baseline_policy.h) change these:
  // how an offering is picked, and whether a gang's pods are launched for as one.
  OfferingPick offering_pick = OfferingPick::Cheapest;
  bool gangs = true;
};

struct LaunchDecision {
  std::string instance_type;
  std::string zone;
  CapacityType capacity_type = CapacityType::Spot;
  int count = 0;
  double usd_per_hour = 0;           // of one instance
  std::vector<std::string> pods;     // "ns/name" of the pods this launch is for
  std::string owner_namespace;       // charged with idle time
  std::string job;                   // job key that caused it (first one when several)
  std::uint32_t offering_index = 0;  // into Catalog::offerings
  std::string pool;                  // the pool it launches in (fitscale.io/pool)
  // A gang's nodes of this offering: all of them or none (a cloud that can, EC2 CreateFleet
  // with MinTargetCapacity, gives all or nothing; a partial answer is terminated at once).
  bool all_or_nothing = false;
};

enum class RemoveReason { Empty, NeverRegistered, Interrupted, NotReady };
struct RemoveDecision {
  std::string node;
  std::string instance_id;
  RemoveReason kind = RemoveReason::Empty;
  std::string reason;  // "empty for 312s"
  // Pods to evict first: evictable ones (not batch, not do-not-disrupt, not daemon/mirror).
  std::vector<std::string> evict;
};

// A node scale-down would remove (empty of pods that pin it, for longer than emptyAfter) but
// keeps, because its evictable pods fit nowhere else: removing it would only evict them into a
// launch of the same size.
struct KeepDecision {
  std::string node;
  std::string reason;  // "pod web/api-7d9 fits on no other node (Insufficient cpu)"
};

enum class UnschedulableKind {
  NoOffering,       // no offering can ever hold it (constraints, resources)
  BudgetWait,       // refused by an hourly cap or count cap right now; reconsidered later
  BudgetRefused,    // can never fit its caps: refused for good
  CapacityBackoff,  // fitting offerings are all backed off right now
  GangIncomplete,   // not all members of the gang exist yet
};
struct UnschedulableDecision {
  std::string pod;  // "ns/name"
  std::string job;
  UnschedulableKind kind = UnschedulableKind::NoOffering;
  std::string reason;
};

struct Plan {
  std::vector<LaunchDecision> launch;
  std::vector<RemoveDecision> remove;
  std::vector<KeepDecision> keep;
  std::vector<UnschedulableDecision> unschedulable;
  // Pods the plan expects to land on existing or in-flight nodes: "ns/name" -> node name.
  std::map<std::string, std::string> placements;
  double usd_per_hour = 0;  // of all launches
};

// Pure and deterministic: same inputs, same plan.
Plan plan(const Snapshot& snapshot, const Catalog& catalog, const Policy& policy, Time now);

// A simple lower bound on what serving `pod` on new nodes costs per hour: over the offerings
// it may use (policy zones, not backed off, labels, spot unless it requires on-demand, falling
// back to on-demand as the planner does), the least of price x dominant share of the offering's
// allocatable (cpu, memory, GPUs, pods, extended). 0 when no offering can hold it. The planner's
// benchmarks and the simulator's reports compare plans against the sum over pods.
double lower_bound_usd_per_hour(const Pod& pod, const Catalog& catalog, const Policy& policy);

const char* to_string(RemoveReason r);
const char* to_string(UnschedulableKind k);

}  // namespace fitscale
