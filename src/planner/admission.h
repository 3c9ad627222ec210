#pragma once
// Budget admission (issue 4): a pending job may cause a launch only if, with the instances this
// plan launches for it, every cap of its namespace and of the cluster holds. The book
// accumulates what earlier jobs of the same plan were granted, so two jobs that each fit alone
// but not together never both launch.
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
  std::int64_t gpus = 0;
  std::int64_t nodes = 0;
  std::optional<Seconds> declared_runtime;  // longest declared among its pods
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

 private:
  struct NamespaceUse {
    NamespaceBudget budget;         // the namespace's caps, looked up once per plan
    NamespaceSpend spend;           // from the ledger
    Micros committed_per_hour = 0;  // running and in-flight instances charged to it
    Micros added_per_hour = 0;      // granted earlier in this plan
    Micros added_today = 0;         // worst case of those grants within the current UTC day
    Micros added_this_month = 0;
  };
  NamespaceUse& use(std::string_view ns);
  // What the managed nodes the namespace owns cost per hour.
  Micros node_price(std::string_view ns) const;

  const Snapshot& snapshot_;
  const Policy& policy_;
  Time now_;
  Seconds day_left_ = 0, month_len_ = 0, month_left_ = 0;  // of the current UTC day and month
  // The namespaces whose jobs asked in this plan.
  std::map<std::string, NamespaceUse, std::less<>> namespaces_;
  // Per owner namespace, of the managed nodes: views into the snapshot's nodes.
  std::vector<std::pair<std::string_view, Micros>> node_prices_;
  Micros cluster_committed_per_hour_ = 0;
  Micros cluster_added_per_hour_ = 0;
  std::int64_t cluster_gpus_ = 0;  // managed nodes now plus grants
  std::int64_t cluster_nodes_ = 0;
};

}  // namespace fitscale::planner
