#include "planner/policy_from_config.h"

namespace fitscale {

Policy policy_from_config(const Config& config) {
  Policy p;
  p.zones = config.zones;
  p.pool = config.pool;
  p.empty_ttl_s = config.scale_down.empty_after_s;
  p.register_timeout_s = config.scale_down.register_timeout_s;
  p.not_ready_after_s = config.scale_down.not_ready_after_s;
  p.delay_after_launch_s = config.scale_down.delay_after_launch_s;
  p.budgets = budgets_or_defaults(config);
  p.enforce_budgets = true;
  return p;
}

CatalogOptions catalog_options_from_config(const Config& config) {
  CatalogOptions o;
  o.zones = config.zones;
  o.region = config.region;
  o.pool = config.pool;
  o.pools = config.pools;
  o.allocatable = config.allocatable;
  return o;
}

}  // namespace fitscale
