#pragma once
// Budget custom resources (budgets.fitscale.io, deploy/crds/budgets.fitscale.io.yaml) as values:
// what `fitscale run` reads from the cluster and `fitscale validate` from manifests, and how they
// combine with the config file's `budgets:` block (docs/budgets.md, "Budget objects").
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/budget.h"
#include "model/money.h"
#include "model/time.h"

namespace fitscale {

// A Budget in fitscale's own namespace named `cluster` or `default` holds the cluster-wide or
// the default caps; every other Budget holds the caps of the namespace it is in.
enum class BudgetScope { Namespace, Default, Cluster };
inline constexpr std::string_view kClusterBudgetName = "cluster";
inline constexpr std::string_view kDefaultBudgetName = "default";

// What the leader last wrote into a Budget's status: the spend of its namespace for the UTC day
// and month named, and the alerts already sent for them. A new leader starts from it.
struct BudgetStatus {
  std::string day;    // "2026-12-01": the UTC day spent_today is for
  std::string month;  // "2026-12"
  Micros spent_today = 0;
  Micros spent_this_month = 0;
  Micros committed_micros_per_hour = 0;
  // "day/2026-12-01/80", "month/2026-12/100": each threshold of each period, once.
  std::vector<std::string> alerts_sent;
  Time updated_at = 0;  // when the spend was measured (running nodes metered up to here)
  bool operator==(const BudgetStatus&) const = default;
};

struct BudgetObject {
  std::string ns;
  std::string name;
  std::string uid;
  std::string resource_version;
  BudgetScope scope = BudgetScope::Namespace;
  NamespaceBudget caps;        // Namespace and Default scope
  ClusterBudget cluster_caps;  // Cluster scope
  std::optional<BudgetStatus> status;
  std::string status_problem;  // why a status that is there was not read ("" when it was)
  std::string key() const { return ns + "/" + name; }
};

BudgetScope budget_scope(std::string_view ns, std::string_view name, std::string_view own_ns);

// A Budget object that is not used, and why (bad spec, a second one in a namespace).
struct BudgetProblem {
  std::string key;  // "ns/name"
  std::string error;
};

// The budgets that apply: `base` (the config file's, or the safe defaults) with every key a
// Budget object sets replacing that key of its level (cluster, default, its namespace). The first
// Budget of a namespace (by name) is used; others are reported in `problems` and ignored. Returns
// the objects used for namespaces, by namespace.
struct MergedBudgets {
  Budgets budgets;
  std::vector<const BudgetObject*> namespace_objects;  // one per namespace, ordered by namespace
  std::vector<BudgetProblem> problems;
};
MergedBudgets merge_budget_objects(const Budgets& base, const std::vector<BudgetObject>& objects);

// "2026-12-01" and "2026-12" for the UTC day / month holding `t`.
std::string utc_day_name(Time t);
std::string utc_month_name(Time t);

}  // namespace fitscale
