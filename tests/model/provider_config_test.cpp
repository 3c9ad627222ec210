// `providers:` in the config file (docs/clouds.md): what it reads, and the errors that name the
// file, line and key.
#include <gtest/gtest.h>

#include "model/config.h"
#include "model/error.h"

namespace fitscale {
namespace {

std::string error_of(const std::string& yaml) {
  try {
    parse_config(yaml, "config.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ProviderConfig, ReadsCloudsAndOwnedHardware) {
  const Config c = parse_config(R"(
providers:
  - name: sim
    kind: sim
  - name: owned
    kind: static
    nodeSelector: {example.com/owned: "true"}
    usdPerHour: 0.5
    nodes: [{instanceType: p3.8xlarge, count: 4}]
  - name: azure
    kind: azure
    region: eastus
    zones: [eastus-1, eastus-2]
    azure: {subscriptionId: sub, resourceGroup: rg, tenantId: t, clientId: c,
            clientSecretFile: /s, endpoint: "http://127.0.0.1:1"}
)",
                                "config.yaml");
  ASSERT_EQ(c.providers.size(), 3u);
  EXPECT_EQ(c.providers[0].kind, ProviderKind::Sim);
  EXPECT_EQ(c.providers[1].kind, ProviderKind::Static);
  EXPECT_EQ(c.providers[1].node_selector.at("example.com/owned"), "true");
  EXPECT_DOUBLE_EQ(c.providers[1].usd_per_hour, 0.5);
  ASSERT_EQ(c.providers[1].nodes.size(), 1u);
  EXPECT_EQ(c.providers[1].nodes[0].count, 4);
  EXPECT_EQ(c.providers[2].azure.resource_group, "rg");
  EXPECT_EQ(c.providers[2].zones, (std::vector<std::string>{"eastus-1", "eastus-2"}));
  EXPECT_TRUE(parse_config("", "config.yaml").providers.empty());
}

TEST(ProviderConfig, MistakesNameTheEntryAndKey) {
  EXPECT_NE(error_of("providers:\n  - {name: a, kind: sim}\n  - {name: a, kind: sim}\n")
                .find("config.yaml:3: providers[1].name: provider \"a\" is listed twice"),
            std::string::npos);
  EXPECT_NE(error_of("providers:\n  - {name: owned, kind: static}\n").find("needs a nodeSelector"),
            std::string::npos);
  EXPECT_NE(error_of("providers:\n  - {name: s, kind: sim, usdPerHour: 1}\n")
                .find("providers[0].usdPerHour: is for kind static only"),
            std::string::npos);
  EXPECT_NE(error_of("providers:\n  - {name: g, kind: oracle}\n")
                .find("providers[0].kind: must be one of"),
            std::string::npos);
  EXPECT_NE(error_of("providers:\n  - {name: z, kind: azure, region: eastus}\n")
                .find("kind azure needs an azure: map"),
            std::string::npos);
  EXPECT_NE(
      error_of(
          "providers:\n  - {name: z, kind: azure, region: eastus, azure: {resourceGroup: r}}\n")
          .find("needs subscriptionId"),
      std::string::npos);
  EXPECT_NE(error_of("providers:\n  - {name: Big_Name, kind: sim}\n").find("must be a DNS label"),
            std::string::npos);
  EXPECT_NE(error_of("pools:\n  - {name: p, provider: \"\"}\n").find("pools[0].provider"),
            std::string::npos);
}

}  // namespace
}  // namespace fitscale
