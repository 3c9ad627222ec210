// `providers:` decides where catalog rows are sold and which zones the planner may use
// (docs/clouds.md).
#include <gtest/gtest.h>

#include "model/config.h"
#include "model/error.h"
#include "planner/policy_from_config.h"

namespace fitscale {
namespace {

TEST(PolicyProviders, EveryCloudSellsInItsZonesAndTheFirstTakesRowsWithoutAProvider) {
  const Config c = parse_config(R"(
providers:
  - {name: owned, kind: static, nodeSelector: {owned: "true"}}
  - {name: sim, kind: sim}
  - {name: azure, kind: azure, region: eastus, zones: [eastus-1],
     azure: {subscriptionId: s, resourceGroup: r}}
)",
                                "config.yaml");
  const CatalogOptions o = catalog_options_from_config(c);
  EXPECT_EQ(o.provider, "sim");  // owned hardware sells nothing
  ASSERT_EQ(o.places.count("owned"), 0u);
  EXPECT_EQ(o.places.at("sim").zones, c.zones);
  EXPECT_EQ(o.places.at("azure").zones, std::vector<std::string>{"eastus-1"});
  EXPECT_EQ(o.places.at("azure").region, "eastus");
  const Policy p = policy_from_config(c);
  EXPECT_NE(std::find(p.zones.begin(), p.zones.end(), "eastus-1"), p.zones.end());
  // No providers: as before, one provider with no name.
  EXPECT_TRUE(catalog_options_from_config(parse_config("", "c.yaml")).provider.empty());
}

TEST(PolicyProviders, TwoCloudsInTheSameZonesAreRefused) {
  const Config c = parse_config("providers:\n  - {name: a, kind: sim}\n  - {name: b, kind: sim}\n",
                                "config.yaml");
  std::vector<InstanceType> types(1);
  types[0].name = "m5.large";
  types[0].arch = "amd64";
  types[0].vcpu = 2;
  types[0].memory_mib = 8192;
  types[0].on_demand_usd_per_hour = 0.096;
  EXPECT_THROW(build_catalog(types, catalog_options_from_config(c)), InputError);
}

}  // namespace
}  // namespace fitscale
