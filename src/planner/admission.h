#pragma once
// Budget admission (issues 4 and 12): a pending job may take room on existing or in-flight
// nodes, or cause a launch, only if, with what it takes, every cap of its namespace and of the
// cluster holds. A namespace is committed for every running and in-flight node it launched (all
// of it: whatever other teams' pods use of it comes back to it as idle when they leave) and for
// its pods' dominant shares of other teams' nodes, so a team cannot run past its cap on another
// team's room, nor be pushed past it when others leave its nodes. The book accumulates what
// earlier jobs of the same plan were granted, so two jobs that each fit alone but not together
// never both start.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "planner/plan.h"

namespace fitscale::planner {

// What one job asks for in this plan.
// Views into the plan's own strings: admission runs once per pending job (51,000 of them in the
// cluster-autoscaler benchmark), so nothing per job is copied that need not be.
struct JobAsk {
  std::string_view ns;
  std::string_view job;
  Micros micros_per_hour = 0;  // its new instances (its marginal share when nodes are shared)
  // Its share of the existing and in-flight nodes this plan places it on (already counted in
  // the cluster's totals: it moves from their owners' idle to the job's namespace).
  Micros existing_micros_per_hour = 0;
  std::int64_t gpus = 0;
  std::int64_t nodes = 0;
  std::optional<Seconds> declared_runtime;  // longest declared among its pods
  // Lone pods share new nodes with other jobs' pods, so their node and GPU counts are known
  // only after packing: the plan checks those counts then, for all its jobs at once
  // (issue 12), and admit() checks only that the job alone fits them.
  bool counts_after_packing = false;
};

struct Refusal {
  UnschedulableKind kind = UnschedulableKind::BudgetWait;
  std::string reason;
};

class BudgetBook {
 public:
  BudgetBook(const Snapshot& snapshot, const Policy& policy, Time now);
  // nullopt: admitted and recorded; else why not (nothing recorded).
  std::optional<Refusal> admit(const JobAsk& ask);

  // What the new nodes of lone jobs, packed, may still add once every job was admitted: nodes
  // and GPUs under the cluster's caps, and new $/h under the cluster's and a namespace's
  // usdPerHour (its cap less what is committed and what its jobs take on existing nodes).
  // nullopt: no such cap.
  std::optional<std::int64_t> nodes_left() const;
  std::optional<std::int64_t> gpus_left() const;
  std::optional<Micros> cluster_new_room_per_hour() const;
  std::optional<Micros> new_room_per_hour(std::string_view ns) const;

  // Lone jobs were admitted at their marginal price in their own class's packing; the plan's
  // final packing (backfill across classes, larger nodes for the count caps) may commit a
  // namespace or a job for more: the namespace whose pod leads a launch owns all of its nodes
  // (their idle is its), the others their pods' dominant shares. Given that, per namespace
  // and per "ns/job", over the plan's new nodes for lone jobs: "" when every usdPerHour,
  // usdPerDay, usdPerMonth and usdPerJob still holds, else the cap broken (a BudgetWait reason).
  std::string after_packing(const std::map<std::string, Micros, std::less<>>& by_ns,
                            const std::map<std::string, Micros, std::less<>>& by_job) const;

 private:
  struct LoneGrant {
    Micros new_per_hour = 0;       // what admission charged it for new nodes
    Micros existing_per_hour = 0;  // and for room on existing ones
    std::optional<Seconds> runtime;
  };
  struct NamespaceUse {
    NamespaceBudget budget;              // the namespace's caps, looked up once per plan
    NamespaceSpend spend;                // from the ledger
    Micros committed_per_hour = 0;       // running and in-flight instances charged to it
    Micros added_per_hour = 0;           // granted earlier in this plan
    Micros added_existing_per_hour = 0;  // the part of it on existing and in-flight nodes
    Micros added_today = 0;              // worst case of those grants within the current UTC day
    Micros added_this_month = 0;
    Micros lone_new_per_hour = 0;  // of added_per_hour: lone jobs' new nodes
    Seconds longest_lone_runtime = 0;
    bool lone_runtime_unknown = false;
  };
  std::map<std::string, LoneGrant, std::less<>> lone_grants_;  // by "ns/job"
  NamespaceUse& use(std::string_view ns);
  // The namespace's attributed share of the managed nodes' prices per hour.
  Micros node_price(std::string_view ns) const;
  void charge(std::string_view ns, Micros micros_per_hour);

  const Snapshot& snapshot_;
  const Policy& policy_;
  Seconds day_left_ = 0, month_len_ = 0, month_left_ = 0;  // of the current UTC day and month
  // The namespaces whose jobs asked in this plan.
  std::map<std::string, NamespaceUse, std::less<>> namespaces_;
  // Per namespace, its share of the managed nodes' prices: views into the snapshot.
  std::vector<std::pair<std::string_view, Micros>> node_prices_;
  std::size_t last_ = 0;  // node_prices_ entry of the last charge (consecutive ones often match)
  Micros cluster_committed_per_hour_ = 0;
  Micros cluster_added_per_hour_ = 0;
  std::int64_t cluster_gpus_ = 0;  // managed nodes now plus grants
  std::int64_t cluster_nodes_ = 0;
};

}  // namespace fitscale::planner
