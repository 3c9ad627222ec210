#pragma once
// A Budget object's spec read with exactly the rules of the config file's `budgets:` block (the
// same keys, bounds and messages), so a Budget manifest and a config file cannot disagree about
// what a cap means. Implemented next to the config reader (config.cpp).
#include <yaml-cpp/yaml.h>

#include <string>

#include "model/budget.h"

namespace fitscale {

// `source` names the object or file ("Budget team-a/caps", "budgets.yaml"), `path` the spec
// ("spec"): errors read "budgets.yaml:7: spec.usdPerDay: must be a number >= 0, got \"lots\"".
// Throw InputError.
NamespaceBudget read_namespace_budget_spec(const YAML::Node& spec, const std::string& source,
                                           const std::string& path);
ClusterBudget read_cluster_budget_spec(const YAML::Node& spec, const std::string& source,
                                       const std::string& path);

}  // namespace fitscale
