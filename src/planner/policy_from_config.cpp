#include "planner/policy_from_config.h"

#include <algorithm>

namespace fitscale {

Policy policy_from_config(const Config& config) {
  Policy p;
  p.zones = config.zones;
  // Every provider's zones are zones the planner may launch in (docs/clouds.md).
  for (const ProviderConfig& pc : config.providers) {
    for (const std::string& z : pc.zones) {
      if (std::find(p.zones.begin(), p.zones.end(), z) == p.zones.end()) p.zones.push_back(z);
    }
  }
  p.pool = config.pool;
  p.empty_ttl_s = config.scale_down.empty_after_s;
  p.register_timeout_s = config.scale_down.register_timeout_s;
  p.not_ready_after_s = config.scale_down.not_ready_after_s;
  p.delay_after_launch_s = config.scale_down.delay_after_launch_s;
  p.reclaim_factor = config.scale_down.reclaim_factor;
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
  o.reservations = config.reservations;
  // Several providers: catalog rows with no provider column are the first cloud's.
  for (const ProviderConfig& pc : config.providers) {
    if (pc.kind == ProviderKind::Static) continue;  // owned hardware sells no offerings
    if (o.provider.empty()) o.provider = pc.name;
    // Every cloud gets its place, so two that would both sell in the top-level zones are refused
    // (a zone belongs to one provider) rather than mixed in one gang's zone.
    o.places[pc.name] = ProviderPlace{pc.region.empty() ? config.region : pc.region,
                                      pc.zones.empty() ? config.zones : pc.zones};
  }
  return o;
}

}  // namespace fitscale
