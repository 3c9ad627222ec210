// Issue 15 item 2: the pool fields beyond requirements, labels, taints and limits: provider and
// its AWS template, kubelet maxPods, scale-down policy, expireAfter (Never only).
#include <gtest/gtest.h>

#include <string>

#include "model/catalog.h"
#include "model/config.h"
#include "model/error.h"
#include "model/pool.h"

namespace fitscale {
namespace {

std::string error_of(const std::string& yaml) {
  try {
    parse_config(yaml, "c.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PoolFields, ProviderTemplateKubeletScaleDownAndExpiry) {
  const Config c = parse_config(R"(
pools:
  - name: gpu
    provider: aws
    template:
      launchTemplate: {name: gpu-nodes, version: "3"}
      amiSSMParameter: /aws/service/eks/optimized-ami/1.30/amazon-linux-2-gpu/recommended/image_id
      subnetSelectorTerms: [{tags: {karpenter.sh/discovery: lab}}, {id: subnet-0abc}]
      securityGroupSelectorTerms: [{tags: {team: ml}}]
      tags: {cost-center: research}
    kubelet: {maxPods: 20}
    scaleDown: {whenEmpty: true, after: 10m}
    expireAfter: Never
  - name: warm
    scaleDown: {whenEmpty: false}
)",
                                "c.yaml");
  const Pool& p = c.pools[0];
  EXPECT_EQ(p.provider, "aws");
  EXPECT_EQ(p.aws.launch_template_name, "gpu-nodes");
  EXPECT_EQ(p.aws.launch_template_version, "3");
  EXPECT_EQ(p.aws.ami_ssm_parameter,
            "/aws/service/eks/optimized-ami/1.30/amazon-linux-2-gpu/recommended/image_id");
  ASSERT_EQ(p.aws.subnet_selector_terms.size(), 2u);
  EXPECT_EQ(p.aws.subnet_selector_terms[0].tags.at("karpenter.sh/discovery"), "lab");
  EXPECT_EQ(p.aws.subnet_selector_terms[1].id, "subnet-0abc");
  EXPECT_EQ(p.aws.tags.at("cost-center"), "research");
  EXPECT_EQ(p.max_pods, 20);
  EXPECT_TRUE(p.scale_down.when_empty);
  EXPECT_EQ(p.scale_down.empty_after, 600);
  EXPECT_FALSE(c.pools[1].scale_down.when_empty);
  EXPECT_FALSE(c.pools[1].scale_down.empty_after);
}

TEST(PoolFields, BadValuesNameFileLineAndField) {
  EXPECT_EQ(error_of("pools:\n  - name: a\n    expireAfter: 720h\n"),
            "c.yaml:3: pools[0].expireAfter: must be Never (fitscale never expires nodes: a "
            "running job is never ended to renew its node), got \"720h\"");
  EXPECT_EQ(error_of("pools:\n  - name: a\n    provider: azure\n"),
            "c.yaml:3: pools[0].provider: names no provider: \"azure\"; expected aws or sim (the "
            "file lists no providers:)");
  EXPECT_EQ(error_of("pools:\n  - name: a\n    kubelet: {maxPods: 0}\n"),
            "c.yaml:3: pools[0].kubelet.maxPods: must be a whole number from 1 to 100000, got "
            "\"0\"");
  EXPECT_EQ(error_of("pools:\n  - name: a\n    scaleDown: {after: soon}\n")
                .rfind("c.yaml:3: pools[0].scaleDown.after: bad duration \"soon\"", 0),
            0u);
  EXPECT_EQ(
      error_of("pools:\n  - name: a\n    template:\n      launchTemplate: {version: \"1\"}\n"),
      "c.yaml:4: pools[0].template.launchTemplate: needs either name or id (not both)");
  EXPECT_EQ(
      error_of("pools:\n  - name: a\n    template:\n      subnetSelectorTerms: [{}]\n"),
      "c.yaml:4: pools[0].template.subnetSelectorTerms[0]: needs either tags or id (not both)");
  EXPECT_EQ(error_of("pools:\n  - name: a\n    template: {amiSSMParameter: ami-123}\n"),
            "c.yaml:3: pools[0].template.amiSSMParameter: must be an SSM parameter path starting "
            "with '/', got \"ami-123\"");
  EXPECT_NE(error_of("pools:\n  - name: a\n    template: {role: KarpenterNodeRole}\n")
                .find("unknown key \"role\""),
            std::string::npos);
}

TEST(PoolFields, MaxPodsCapsThePodsOfThePoolsOfferingsOnly) {
  CatalogOptions o;
  o.zones = {"us-east-1a"};
  o.pools =
      parse_config("pools:\n  - name: dense\n    kubelet: {maxPods: 8}\n  - name: open\n", "c.yaml")
          .pools;
  const Catalog c = build_catalog(parse_catalog_csv(default_catalog_csv(), "embedded"), o);
  const Offering* dense =
      c.find_offering("m5.24xlarge", "us-east-1a", CapacityType::OnDemand, "dense");
  const Offering* open =
      c.find_offering("m5.24xlarge", "us-east-1a", CapacityType::OnDemand, "open");
  ASSERT_NE(dense, nullptr);
  ASSERT_NE(open, nullptr);
  EXPECT_EQ(dense->allocatable.pods, 8);
  EXPECT_GT(open->allocatable.pods, 8);
}

TEST(PoolFields, WithPoolsMakesWhatBuildCatalogMakes) {
  CatalogOptions o;
  o.zones = {"us-east-1a", "us-east-1b"};
  const auto types = parse_catalog_csv(default_catalog_csv(), "embedded");
  const Catalog built = build_catalog(types, o);  // the default pool
  CatalogOptions open = o;
  open.pools = {Pool{}};
  const Catalog again = with_pools(build_catalog(types, open), {default_pool("default")});
  ASSERT_EQ(built.offerings.size(), again.offerings.size());
  for (std::size_t i = 0; i < built.offerings.size(); ++i) {
    EXPECT_EQ(built.offerings[i].key(), again.offerings[i].key());
    EXPECT_EQ(built.offerings[i].labels, again.offerings[i].labels);
    EXPECT_EQ(built.offerings[i].taints, again.offerings[i].taints);
  }
}

}  // namespace
}  // namespace fitscale
