#include "model/pool.h"

#include <gtest/gtest.h>

#include <string>

#include "model/catalog.h"
#include "model/config.h"
#include "model/error.h"
#include "model/pool_config.h"

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

TEST(Pool, ReadsEveryFieldFromTheConfig) {
  const Config c = parse_config(R"(
pools:
  - name: gpu
    weight: 50
    requirements:
      - {key: fitscale.io/instance-family, operator: In, values: [p3, p4d]}
      - {key: fitscale.io/gpu-count, operator: Gt, values: ["1"]}
      - {key: fitscale.io/instance-size, operator: Exists}
    labels: {team: ml}
    taints: [{key: team, value: ml, effect: NoSchedule}]
    gpuTaints: [{key: nvidia.com/gpu, effect: NoSchedule}]
    startupTaints: [{key: example.com/init, effect: NoExecute}]
    limits: {cpu: "1000", memory: 4Ti, gpus: 64, nodes: 8, usdPerHour: 250.5}
  - name: cpu
)",
                                "c.yaml");
  ASSERT_EQ(c.pools.size(), 2u);
  const Pool& p = c.pools[0];
  EXPECT_EQ(p.name, "gpu");
  EXPECT_EQ(p.weight, 50);
  ASSERT_EQ(p.requirements.size(), 3u);
  EXPECT_EQ(p.requirements[0].op, SelectorOp::In);
  EXPECT_EQ(p.requirements[0].values, (std::vector<std::string>{"p3", "p4d"}));
  EXPECT_EQ(p.requirements[1].op, SelectorOp::Gt);
  EXPECT_EQ(p.labels.at("team"), "ml");
  EXPECT_EQ(p.taints, (std::vector<Taint>{{"team", "ml", TaintEffect::NoSchedule}}));
  EXPECT_EQ(p.gpu_taints.size(), 1u);
  EXPECT_EQ(p.startup_taints[0].effect, TaintEffect::NoExecute);
  EXPECT_EQ(*p.limits.cpu_milli, 1'000'000);
  EXPECT_EQ(*p.limits.memory_bytes, 4LL << 40);
  EXPECT_EQ(*p.limits.gpus, 64);
  EXPECT_EQ(*p.limits.nodes, 8);
  EXPECT_DOUBLE_EQ(*p.limits.usd_per_hour, 250.5);
  EXPECT_EQ(c.pools[1].name, "cpu");
  EXPECT_FALSE(c.pools[1].limits.any());
}

TEST(Pool, BadPoolsNameFileLineAndField) {
  EXPECT_EQ(error_of("pools:\n  - name: a\n    requirements:\n      - {key: x, operator: Gte}\n"),
            "c.yaml:4: pools[0].requirements[0].operator: must be one of In, NotIn, Exists, "
            "DoesNotExist, Gt, Lt, got \"Gte\"");
  EXPECT_EQ(error_of("pools:\n  - name: a\n    requirements:\n      - {key: x, operator: In}\n"),
            "c.yaml:4: pools[0].requirements[0].values: In needs at least one value");
  EXPECT_EQ(error_of("pools:\n  - name: a\n    requirements:\n"
                     "      - {key: x, operator: Gt, values: [big]}\n"),
            "c.yaml:4: pools[0].requirements[0].values: Gt needs exactly one whole number");
  EXPECT_EQ(error_of("pools:\n  - name: a\n    weight: 101\n"),
            "c.yaml:3: pools[0].weight: must be a whole number from 0 to 100, got \"101\"");
  EXPECT_EQ(error_of("pools:\n  - name: a\n  - name: a\n"),
            "c.yaml:3: pools[1].name: pool \"a\" is listed twice");
  EXPECT_EQ(error_of("pools:\n  - name: Big_Pool\n"),
            "c.yaml:2: pools[0].name: must be a DNS label (lower case letters, digits, '-'), got "
            "\"Big_Pool\"");
  EXPECT_EQ(error_of("pools:\n  - name: a\n    taints: [{key: k, effect: Never}]\n"),
            "c.yaml:3: pools[0].taints[0].effect: must be one of NoSchedule, PreferNoSchedule, "
            "NoExecute, got \"Never\"");
  EXPECT_EQ(
      error_of("pools:\n  - name: a\n    limits: {nodes: -1}\n"),
      "c.yaml:3: pools[0].limits.nodes: must be a whole number from 0 to 1000000, got \"-1\"");
  EXPECT_EQ(error_of("pools:\n  - name: a\n    limits: {memory: lots}\n"),
            "c.yaml:3: pools[0].limits.memory: bad quantity \"lots\": must start with a number");
  EXPECT_EQ(error_of("pools:\n  - name: a\n    labels: {fitscale.io/pool: b}\n"),
            "c.yaml:3: pools[0].labels.fitscale.io/pool: is set by fitscale to the pool's name");
  EXPECT_EQ(error_of("pools: []\n"),
            "c.yaml:1: pools: lists no pool; remove the key to get the default pool");
  EXPECT_NE(error_of("pools:\n  - name: a\n    taint: []\n").find("unknown key \"taint\""),
            std::string::npos);
}

TEST(Pool, TypeNamesAndCurrentGeneration) {
  const TypeName t = parse_type_name("p3dn.24xlarge");
  EXPECT_EQ(t.category, "p");
  EXPECT_EQ(t.family, "p3dn");
  EXPECT_EQ(t.generation, "3");
  EXPECT_EQ(t.size, "24xlarge");
  EXPECT_EQ(parse_type_name("p6-b200.48xlarge").generation, "6");
  EXPECT_EQ(parse_type_name("u-3tb1.56xlarge").generation, "");
  EXPECT_TRUE(is_current_generation("p3.2xlarge"));  // V100s stay usable
  EXPECT_TRUE(is_current_generation("m5.large"));
  EXPECT_TRUE(is_current_generation("c7i-flex.large"));
  EXPECT_FALSE(is_current_generation("m3.medium"));
  EXPECT_FALSE(is_current_generation("c1.xlarge"));
  EXPECT_TRUE(is_current_generation("t2.micro"));
  EXPECT_TRUE(is_current_generation("gpu1.large")) << "not an EC2 name: not an old EC2 type";
  EXPECT_FALSE(is_current_generation("x1.16xlarge"));
  EXPECT_TRUE(is_current_generation("u-3tb1.56xlarge"));
}

TEST(Pool, DefaultPoolIsAmd64CurrentGenerationWithTaintedGpuNodes) {
  const Catalog c = build_catalog(parse_catalog_csv(default_catalog_csv(), "embedded"), {});
  ASSERT_EQ(c.pools.size(), 1u);
  EXPECT_EQ(c.pools[0].name, "default");
  bool gpu_seen = false;
  for (const Offering& o : c.offerings) {
    EXPECT_EQ(o.labels.at(std::string(label::kArch)), "amd64") << o.key();
    EXPECT_TRUE(is_current_generation(o.instance_type)) << o.key();
    const bool gpu = o.allocatable.gpus > 0;
    gpu_seen = gpu_seen || gpu;
    EXPECT_EQ(o.taints.size(), gpu ? 1u : 0u) << o.key();
    if (gpu) {
      EXPECT_EQ(describe(o.taints[0]), "nvidia.com/gpu=true:NoSchedule");
    }
  }
  EXPECT_TRUE(gpu_seen);
  EXPECT_EQ(c.find_type("t4g.large") != nullptr, true) << "the catalog still has arm64 types";
}

TEST(Pool, OfferingsComeThroughEachPoolThatAdmitsThemWithItsLabelsAndTaints) {
  CatalogOptions o;
  o.zones = {"us-east-1a"};
  o.pools = parse_config(R"(
pools:
  - name: v100
    requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]},
                   {key: fitscale.io/gpu-model, operator: In, values: [V100]}]
    labels: {team: ml}
    taints: [{key: team, value: ml, effect: NoSchedule}]
  - name: any
)",
                         "c.yaml")
                .pools;
  const Catalog c = build_catalog(parse_catalog_csv(default_catalog_csv(), "embedded"), o);
  std::size_t v100 = 0;
  for (const Offering& off : c.offerings) {
    if (off.pool_index != 0) continue;
    ++v100;
    EXPECT_EQ(off.capacity_type, CapacityType::Spot);
    EXPECT_EQ(off.labels.at("fitscale.io/gpu-model"), "V100");
    EXPECT_EQ(off.labels.at("team"), "ml");
    EXPECT_EQ(off.labels.at("fitscale.io/pool"), "v100");
    EXPECT_EQ(off.taints.size(), 1u);
  }
  EXPECT_GT(v100, 0u);
  const Offering* p3 = c.find_offering("p3.2xlarge", "us-east-1a", CapacityType::Spot, "any");
  ASSERT_NE(p3, nullptr);
  EXPECT_EQ(p3->labels.at("fitscale.io/pool"), "any");
  EXPECT_TRUE(p3->taints.empty()) << "a configured pool has no GPU taint unless it says so";
  EXPECT_EQ(c.find_offering("p3.2xlarge", "us-east-1a", CapacityType::Spot, "v100")->pool_index,
            0u);
}

}  // namespace
}  // namespace fitscale
