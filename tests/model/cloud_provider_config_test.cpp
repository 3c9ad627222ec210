// `providers:` entries of kind gcp and aws (docs/clouds.md, docs/gcp.md), each cloud's own
// catalog, and a pool's `provider:` naming any configured provider: what is read, and the errors
// that name the file, line and key.
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

constexpr const char* kThreeClouds = R"(providers:
  - name: aws-east
    kind: aws
    region: us-east-1
    zones: [us-east-1a, us-east-1b]
  - name: aws-west
    kind: aws
    region: us-west-2
    zones: [us-west-2a]
    catalog: aws-us-west-2.csv
    aws: {endpoint: "http://127.0.0.1:5000", credentialsProfile: west, subnets: {us-west-2a: subnet-1}}
  - name: gcp
    kind: gcp
    region: us-central1
    zones: [us-central1-a, us-central1-b]
    catalog: gcp-us-central1.csv
    gcp:
      project: research-123
      credentialsFile: /etc/fitscale/gcp-key.json
      image: projects/debian-cloud/global/images/family/debian-12
      subnetwork: regions/us-central1/subnetworks/nodes
      bootDiskGb: 200
pools:
  - name: gpu
    provider: gcp
  - name: west
    provider: aws-west
    template: {launchTemplate: {name: nodes}}
)";

TEST(CloudProviderConfig, ReadsGcpAndAwsInSeveralRegionsEachWithItsCatalog) {
  const Config c = parse_config(kThreeClouds, "config.yaml");
  ASSERT_EQ(c.providers.size(), 3u);
  EXPECT_EQ(c.providers[0].kind, ProviderKind::Aws);
  EXPECT_EQ(c.providers[0].region, "us-east-1");
  EXPECT_TRUE(c.providers[0].catalog.empty());
  EXPECT_EQ(c.providers[1].catalog, "aws-us-west-2.csv");
  EXPECT_EQ(c.providers[1].aws.endpoint, "http://127.0.0.1:5000");
  EXPECT_EQ(c.providers[1].aws.credentials_profile, "west");
  EXPECT_EQ(c.providers[1].aws.subnets.at("us-west-2a"), "subnet-1");
  const ProviderConfig& g = c.providers[2];
  EXPECT_EQ(g.kind, ProviderKind::Gcp);
  EXPECT_EQ(g.gcp.project, "research-123");
  EXPECT_EQ(g.gcp.credentials_file, "/etc/fitscale/gcp-key.json");
  EXPECT_EQ(g.gcp.boot_disk_gb, 200);
  EXPECT_EQ(g.zones, (std::vector<std::string>{"us-central1-a", "us-central1-b"}));
  EXPECT_EQ(c.pools[0].provider, "gcp");
  EXPECT_EQ(c.pools[1].provider, "aws-west");
  EXPECT_STREQ(to_string(ProviderKind::Gcp), "gcp");
}

TEST(CloudProviderConfig, MistakesNameTheFileLineAndKey) {
  EXPECT_EQ(error_of("providers:\n  - {name: g, kind: gcp, zones: [us-central1-a]}\n"),
            "config.yaml:2: providers[0]: kind gcp needs a gcp: map (docs/gcp.md)");
  EXPECT_EQ(error_of("providers:\n  - name: g\n    kind: gcp\n    zones: [us-central1-a]\n"
                     "    gcp: {image: x}\n"),
            "config.yaml:5: providers[0].gcp: needs project (the Compute Engine project id)");
  EXPECT_EQ(error_of("providers:\n  - name: g\n    kind: gcp\n    gcp: {project: p}\n"),
            "config.yaml:2: providers[0]: kind gcp needs zones (the Compute Engine zones it "
            "launches in)");
  EXPECT_EQ(error_of("providers:\n  - name: g\n    kind: gcp\n    zones: [us-central1-a]\n"
                     "    gcp: {project: p, endpoint: compute.googleapis.com}\n"),
            "config.yaml:5: providers[0].gcp.endpoint: must be an http:// or https:// URL, got "
            "\"compute.googleapis.com\"");
  EXPECT_EQ(error_of("providers:\n  - name: g\n    kind: gcp\n    zones: [us-central1-a]\n"
                     "    gcp: {project: p, credentialFile: /k}\n"),
            "config.yaml:5: providers[0].gcp: unknown key \"credentialFile\"; did you mean "
            "\"credentialsFile\"?");
  EXPECT_EQ(error_of("providers:\n  - name: g\n    kind: gcp\n    region: us-central1\n"
                     "    zones: [us-central1-a, europe-west4-a]\n    gcp: {project: p}\n"),
            "config.yaml:5: providers[0].zones[1]: zone \"europe-west4-a\" is not in region "
            "us-central1");
  EXPECT_EQ(error_of("providers:\n  - {name: a, kind: aws}\n"),
            "config.yaml:2: providers[0]: kind aws needs a region (each region is a provider)");
  EXPECT_EQ(error_of("providers:\n  - {name: s, kind: sim, gcp: {project: p}}\n"),
            "config.yaml:2: providers[0].gcp: is for kind gcp only");
  EXPECT_EQ(error_of("providers:\n  - name: a\n    kind: aws\n    region: us-east-1\n"
                     "    aws: {region: us-west-2}\n"),
            "config.yaml:5: providers[0].aws: unknown key \"region\"");
  EXPECT_EQ(error_of("providers:\n  - name: o\n    kind: static\n    nodeSelector: {a: b}\n"
                     "    catalog: owned.csv\n"),
            "config.yaml:5: providers[0].catalog: is for clouds; owned hardware is sold by no "
            "catalog");
}

TEST(CloudProviderConfig, APoolNamesAnyConfiguredCloudAndNothingElse) {
  const std::string providers =
      "providers:\n  - {name: sim, kind: sim}\n  - name: owned\n    kind: static\n"
      "    nodeSelector: {a: b}\n";
  EXPECT_EQ(error_of(providers + "pools:\n  - name: p\n    provider: aws\n"),
            "config.yaml:8: pools[0].provider: names no provider: \"aws\"; expected sim, owned");
  EXPECT_EQ(error_of(providers + "pools:\n  - name: p\n    provider: owned\n"),
            "config.yaml:8: pools[0].provider: \"owned\" is owned hardware, which launches "
            "nothing");
  const std::string gcp =
      "providers:\n  - name: gcp\n    kind: gcp\n    zones: [us-central1-a]\n"
      "    gcp: {project: p}\n";
  EXPECT_EQ(error_of(gcp + "pools:\n  - name: p\n    provider: gcp\n"
                           "    template: {launchTemplate: {name: x}}\n"),
            "config.yaml:9: pools[0].template: is for an AWS provider; \"gcp\" is kind gcp");
  EXPECT_EQ(error_of(providers + "pools:\n  - name: p\n    provider: Not_A_Name\n"),
            "config.yaml:8: pools[0].provider: must be a provider's name (a DNS label: aws, sim "
            "or a providers[].name), got \"Not_A_Name\"");
  EXPECT_EQ(error_of(providers + "pools:\n  - name: p\n    provider: sim\n"), "");
  // Without providers: the provider is --provider's: aws or sim.
  EXPECT_EQ(error_of("pools:\n  - name: p\n    provider: aws\n"), "");
}

}  // namespace
}  // namespace fitscale
