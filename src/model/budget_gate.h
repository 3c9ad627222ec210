#pragma once
// Which new pods the budget gate holds (issue 12, docs/budgets.md "The budget gate"). One rule,
// asked by the webhook `fitscale run` serves (kube/admission_review.h) and by the simulator,
// which models the webhook on every pod it creates.
#include <set>
#include <string>
#include <string_view>

#include "model/budget.h"

namespace fitscale {

// A namespace a budget applies to: one of its dollar caps (usdPerHour, usdPerDay, usdPerMonth,
// usdPerJob) is set. The cluster's caps alone do not make a namespace budgeted: they count only
// new instances, which fitscale already never launches past them.
bool namespace_budgeted(const Budgets& budgets, const std::string& ns);

// What the gate decision reads from a new pod.
struct NewPod {
  std::string_view ns;
  bool daemon = false;  // owned by a DaemonSet: it must run on every node, as the node needs it
  bool mirror = false;  // a static pod's mirror (annotation kubernetes.io/config.mirror)
  bool bound = false;   // spec.nodeName set at creation: no scheduler, and gates are invalid then
  bool gated = false;   // carries fitscale.io/budget already (a reinvoked webhook)
};

struct BudgetGateScope {
  bool enabled = true;  // budgets.gate and enforced budgets
  Budgets budgets;
  // Never gated whatever the budgets say: kube-system and fitscale's own namespace (the one its
  // Lease is in), so neither the cluster's system pods nor fitscale itself can wait for fitscale.
  std::set<std::string, std::less<>> exempt_namespaces = {"kube-system"};
};

// True when the gate is to be added to this new pod.
bool budget_gate_applies(const BudgetGateScope& scope, const NewPod& pod);

}  // namespace fitscale
