#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "model/money.h"
#include "model/time.h"

namespace fitscale {

// What happens to a job still running past its worst-case runtime (declared or maxRuntime).
// Either way its nodes stay committed for another period (issue 12): `Alert` says so (an event
// and a log line), `Terminate` also deletes its pods, as activeDeadlineSeconds would.
enum class MaxRuntimeAction { Alert, Terminate };
const char* to_string(MaxRuntimeAction a);

// Caps for one namespace (or the default for namespaces not named). Unset = no cap at this level.
struct NamespaceBudget {
  std::optional<double> usd_per_hour;
  std::optional<double> usd_per_day;
  std::optional<double> usd_per_month;
  std::optional<double> usd_per_job;
  std::optional<Seconds> max_runtime;  // worst-case runtime of a job that declares none
  std::optional<MaxRuntimeAction> max_runtime_action;  // unset: Alert
  bool operator==(const NamespaceBudget&) const = default;
};

struct ClusterBudget {
  std::optional<double> usd_per_hour;
  std::optional<std::int64_t> gpus;
  std::optional<std::int64_t> nodes;
  bool operator==(const ClusterBudget&) const = default;
};

// budgets: {cluster, default, namespaces} of the config file. The defaults that apply when the
// config has no `budgets` are documented in docs/budgets.md and set by safe_default_budgets().
struct Budgets {
  ClusterBudget cluster;
  NamespaceBudget defaults;
  std::map<std::string, NamespaceBudget, std::less<>> namespaces;
  // budgets.gate: new pods of budgeted namespaces are held by the scheduling gate
  // fitscale.io/budget until their job fits (model/budget_gate.h). false: budgets limit only
  // what fitscale launches (docs/budgets.md says what that does not stop).
  bool gate = true;

  // Namespace caps with `defaults` filling in every key the namespace does not set.
  NamespaceBudget for_namespace(const std::string& ns) const;
};

Budgets safe_default_budgets();

// What a namespace has spent and committed, as the ledger knows it at plan time.
struct NamespaceSpend {
  Micros spent_today = 0;                // closed + open intervals since UTC midnight
  Micros spent_this_month = 0;           // since the first of the UTC month
  Micros committed_micros_per_hour = 0;  // running and in-flight instances charged to it
  // Worst-case remaining cost of what is running/in-flight, for period caps.
  Micros committed_worst_case = 0;
};

}  // namespace fitscale
