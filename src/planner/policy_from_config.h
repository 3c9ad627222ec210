#pragma once
// Turns the config file into what the planner and the catalog builder take, so every command
// (run, simulate, plan, cluster) reads one config the same way.
#include "model/catalog.h"
#include "model/config.h"
#include "planner/plan.h"

namespace fitscale {

// zones, pool, scaleDown.{emptyAfter, registerTimeout}, budgets (or the safe defaults).
Policy policy_from_config(const Config& config);
// zones, region, pool, allocatable.{maxPods, daemonsetOverhead}.
CatalogOptions catalog_options_from_config(const Config& config);

}  // namespace fitscale
