#pragma once
// PodDisruptionBudget status: expectedPods, currentHealthy (Running, not being deleted),
// desiredHealthy from minAvailable or maxUnavailable (integers or percentages, rounded up as
// Kubernetes does) and disruptionsAllowed = max(0, currentHealthy - desiredHealthy), which the
// eviction subresource enforces.
#include "controller/interfaces.h"
#include "vcluster/object_store.h"

namespace fitscale::vcluster {

void update_disruption_budgets(ObjectStore& store);

// minAvailable / maxUnavailable value (int or "N%") against `expected` pods; throws ApiError 422.
std::int64_t scaled_budget_value(const nlohmann::json& v, std::int64_t expected);

}  // namespace fitscale::vcluster
