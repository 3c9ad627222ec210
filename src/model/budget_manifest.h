#pragma once
// One Budget object (a document of a manifest, or an object the API server returned as JSON,
// which is YAML too) into a BudgetObject: apiVersion fitscale.io/v1alpha1, kind Budget,
// metadata.name and metadata.namespace, spec read as the config file's budgets (budget_spec.h),
// status as the leader writes it.
#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

#include "model/budget_object.h"

namespace fitscale {

// Throws InputError naming `source` (a file, with the node's line) or, when `source` is empty (an
// object from the API), the object, and the field. A bad status does not throw: the caps still
// apply, BudgetObject::status_problem says why the status was set aside (a new leader then
// starts that namespace from its own ledger only).
BudgetObject read_budget_manifest(const YAML::Node& doc, const std::string& source,
                                  std::string_view own_ns);

// Is this document a Budget (apiVersion fitscale.io/..., kind Budget)?
bool is_budget_manifest(const YAML::Node& doc);

}  // namespace fitscale
