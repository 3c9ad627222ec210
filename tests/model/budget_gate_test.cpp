// Which new pods the budget gate holds (model/budget_gate.h): the one rule the webhook and the
// simulator share.
#include "model/budget_gate.h"

#include <gtest/gtest.h>

#include "model/config.h"
#include "model/error.h"

namespace fitscale {
namespace {

BudgetGateScope scope_with(Budgets b) {
  BudgetGateScope s;
  s.budgets = std::move(b);
  s.exempt_namespaces.insert("fitscale");
  return s;
}

TEST(BudgetGateRule, NewPodsOfBudgetedNamespacesAreGated) {
  const BudgetGateScope s = scope_with(safe_default_budgets());
  EXPECT_TRUE(budget_gate_applies(s, NewPod{"team-a"}));
}

TEST(BudgetGateRule, SystemFitscaleDaemonMirrorBoundAndAlreadyGatedPodsAreNot) {
  const BudgetGateScope s = scope_with(safe_default_budgets());
  EXPECT_FALSE(budget_gate_applies(s, NewPod{"kube-system"}));
  EXPECT_FALSE(budget_gate_applies(s, NewPod{"fitscale"}));
  NewPod daemon{"team-a"};
  daemon.daemon = true;
  EXPECT_FALSE(budget_gate_applies(s, daemon));
  NewPod mirror{"team-a"};
  mirror.mirror = true;
  EXPECT_FALSE(budget_gate_applies(s, mirror));
  NewPod bound{"team-a"};
  bound.bound = true;
  EXPECT_FALSE(budget_gate_applies(s, bound));
  NewPod again{"team-a"};
  again.gated = true;
  EXPECT_FALSE(budget_gate_applies(s, again));
}

// Only a namespace dollar cap makes a namespace budgeted: cluster caps count new instances only.
TEST(BudgetGateRule, NamespacesWithoutADollarCapAreNotGated) {
  Budgets b;  // `budgets: {}`: no caps
  b.cluster.nodes = 10;
  b.namespaces["capped"].usd_per_month = 100;
  const BudgetGateScope s = scope_with(b);
  EXPECT_FALSE(budget_gate_applies(s, NewPod{"team-a"}));
  EXPECT_TRUE(budget_gate_applies(s, NewPod{"capped"}));
}

TEST(BudgetGateRule, GateOffGatesNothing) {
  BudgetGateScope s = scope_with(safe_default_budgets());
  s.enabled = false;
  EXPECT_FALSE(budget_gate_applies(s, NewPod{"team-a"}));
}

TEST(BudgetGateRule, ConfigKeyBudgetsGateIsReadAndChecked) {
  EXPECT_TRUE(budgets_or_defaults(parse_config("", "config.yaml")).gate);
  EXPECT_FALSE(parse_config("budgets:\n  gate: false\n", "config.yaml").budgets->gate);
  try {
    parse_config("budgets:\n  gate: sometimes\n", "config.yaml");
    FAIL() << "accepted budgets.gate: sometimes";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("config.yaml:2: budgets.gate"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace fitscale
