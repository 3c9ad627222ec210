#include "model/budget_gate.h"

namespace fitscale {

bool namespace_budgeted(const Budgets& budgets, const std::string& ns) {
  const NamespaceBudget b = budgets.for_namespace(ns);
  return b.usd_per_hour || b.usd_per_day || b.usd_per_month || b.usd_per_job;
}

bool budget_gate_applies(const BudgetGateScope& scope, const NewPod& pod) {
  if (!scope.enabled || pod.daemon || pod.mirror || pod.bound || pod.gated) return false;
  if (pod.ns.empty() || scope.exempt_namespaces.count(pod.ns) != 0) return false;
  return namespace_budgeted(scope.budgets, std::string(pod.ns));
}

}  // namespace fitscale
