#include "model/catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "model/error.h"

namespace fitscale {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

const char* kHeader =
    "instance_type,arch,vcpu,memory_mib,gpu,gpu_model,gpu_memory_mib,on_demand_usd_per_hour,"
    "spot_usd_per_hour,spot_interruption_bucket,spot_interruption_label\n";

std::string error_of(const std::string& csv) {
  try {
    parse_catalog_csv(csv, "catalog.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

InstanceType type(std::string name, std::int64_t vcpu, std::int64_t mib) {
  InstanceType t;
  t.name = std::move(name);
  t.arch = "amd64";
  t.vcpu = vcpu;
  t.memory_mib = mib;
  t.on_demand_usd_per_hour = 1;
  return t;
}

TEST(Allocatable, M5LargeByTheEksRule) {
  // m5.large: 2 vCPU, 8192 MiB.
  // CPU reserved = 6% of core 1 (60m) + 1% of core 2 (10m) = 70m -> 2000m - 70m = 1930m.
  // Memory reserved = 255 MiB + 11 MiB x 110 pods + 100 MiB eviction = 1565 MiB
  //   -> 8192 - 1565 = 6627 MiB.
  const Resources a = allocatable(type("m5.large", 2, 8192), AllocatableRule{});
  EXPECT_EQ(a.cpu_milli, 1930);
  EXPECT_EQ(a.memory_bytes, 6627 * kMiB);
  EXPECT_EQ(a.pods, 110);
  EXPECT_EQ(a.gpus, 0);
}

TEST(Allocatable, CpuTiersAboveFourCores) {
  // p3.8xlarge: 32 vCPU = 60 + 10 + 5 + 5 + 28 x 2.5 = 150m reserved; 4 V100.
  InstanceType p3 = type("p3.8xlarge", 32, 249856);
  p3.gpu = 4;
  const Resources a = allocatable(p3, AllocatableRule{});
  EXPECT_EQ(a.cpu_milli, 31850);
  EXPECT_EQ(a.memory_bytes, (249856 - 1565) * kMiB);
  EXPECT_EQ(a.gpus, 4);
  // 5 vCPU: 82.5m reserved, rounded up to 83m so a node never claims CPU it lacks.
  EXPECT_EQ(allocatable(type("odd", 5, 8192), AllocatableRule{}).cpu_milli, 4917);
  // 1 vCPU: 60m.
  EXPECT_EQ(allocatable(type("tiny", 1, 4096), AllocatableRule{}).cpu_milli, 940);
}

TEST(Allocatable, MaxPodsAndDaemonsetOverhead) {
  AllocatableRule rule;
  rule.max_pods = 29;  // reserved = 255 + 319 + 100 = 674 MiB
  rule.daemonset_overhead.cpu_milli = 200;
  rule.daemonset_overhead.memory_bytes = 300 * kMiB;
  rule.daemonset_overhead.pods = 2;
  const Resources a = allocatable(type("m5.large", 2, 8192), rule);
  EXPECT_EQ(a.cpu_milli, 1730);
  EXPECT_EQ(a.memory_bytes, (8192 - 674 - 300) * kMiB);
  EXPECT_EQ(a.pods, 27);
}

TEST(Allocatable, TooSmallTypeHoldsNothing) {
  const Resources a = allocatable(type("t3.nano", 2, 512), AllocatableRule{});
  EXPECT_EQ(a.memory_bytes, 0);
}

TEST(CatalogCsv, ParsesRowsByHeaderName) {
  // Columns in a different order than the shipped file, and optional ones missing.
  const std::string csv =
      "vcpu,instance_type,memory_mib,arch,on_demand_usd_per_hour,spot_usd_per_hour,gpu,gpu_model\n"
      "2,m5.large,8192,amd64,0.096,0.03648,0,\n"
      "32,p3.8xlarge,249856,amd64,12.24,,4,V100\r\n"
      "\n";
  const auto types = parse_catalog_csv(csv, "catalog.csv");
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[0].name, "m5.large");
  EXPECT_EQ(types[0].vcpu, 2);
  EXPECT_DOUBLE_EQ(*types[0].spot_usd_per_hour, 0.03648);
  EXPECT_EQ(types[1].gpu, 4);
  EXPECT_EQ(types[1].gpu_model, "V100");
  EXPECT_FALSE(types[1].spot_usd_per_hour.has_value());
  EXPECT_FALSE(types[1].spot_interruption_bucket.has_value());
}

TEST(CatalogCsv, ErrorsNameFileLineAndColumn) {
  const std::string h = kHeader;
  EXPECT_EQ(error_of(h + "m5.large,amd64,2,8192,0,,0,0.096,abc,1,5-10%\n"),
            "catalog.csv:2: column spot_usd_per_hour: bad number \"abc\"");
  EXPECT_EQ(
      error_of(
          h +
          "m5.large,amd64,2,8192,0,,0,0.096,0.03,1,5-10%\nc5.large,amd64,two,4096,0,,0,0.085,,,\n"),
      "catalog.csv:3: column vcpu: bad integer \"two\"");
  EXPECT_EQ(error_of(h + "m5.large,x86,2,8192,0,,0,0.096,0.03,1,5-10%\n"),
            "catalog.csv:2: column arch: expected amd64 or arm64, got \"x86\"");
  EXPECT_EQ(error_of(h + "m5.large,amd64,2,8192,0,,0,0.096,0.03,7,5-10%\n"),
            "catalog.csv:2: column spot_interruption_bucket: must be 0..4, got 7");
  EXPECT_EQ(error_of(h + "m5.large,amd64,2,8192,0,,0,0.096\n"),
            "catalog.csv:2: 8 fields, the header has 11");
  EXPECT_EQ(
      error_of(h + "m5.large,amd64,2,8192,0,,0,0.096,,,\nm5.large,amd64,2,8192,0,,0,0.096,,,\n"),
      "catalog.csv:3: column instance_type: instance type \"m5.large\" listed twice");
  EXPECT_EQ(error_of("instance_type,arch,vcpu,memory_mib,price\n"),
            "catalog.csv:1: unknown column \"price\"");
  EXPECT_EQ(error_of("instance_type,arch,vcpu,memory_mib\n"),
            "catalog.csv:1: missing required column \"on_demand_usd_per_hour\"");
  EXPECT_EQ(error_of(""), "catalog.csv: empty catalog (no header row)");
  EXPECT_EQ(error_of(h), "catalog.csv: no instance types after the header");
  EXPECT_EQ(error_of(h + "p3.2xlarge,amd64,8,62464,1,,16384,3.06,,,\n"),
            "catalog.csv:2: column gpu_model: empty for a type with GPUs");
}

TEST(CatalogCsv, QuotedFields) {
  const std::string csv =
      std::string(kHeader) + "\"m5.large\",amd64,2,8192,0,,0,0.096,0.03648,1,\"5,10%\"\n";
  const auto types = parse_catalog_csv(csv, "c.csv");
  EXPECT_EQ(types[0].spot_interruption_label, "5,10%");
}

TEST(Catalog, OfferingsPerTypeZoneAndCapacityTypeWithoutSpotWhenNoPrice) {
  const std::string csv = std::string(kHeader) +
                          "m5.large,amd64,2,8192,0,,0,0.096,0.03648,1,5-10%\n"
                          "c6in.12xlarge,amd64,48,98304,0,,0,2.7216,,,\n"
                          "p3.8xlarge,amd64,32,249856,4,V100,16384,12.24,3.672,4,>20%\n";
  const Catalog c = build_catalog(parse_catalog_csv(csv, "c.csv"), CatalogOptions{});
  // m5.large and p3.8xlarge: 3 zones x 2; c6in.12xlarge: 3 zones on-demand only.
  EXPECT_EQ(c.offerings.size(), 15u);
  EXPECT_EQ(std::count_if(c.offerings.begin(), c.offerings.end(),
                          [](const Offering& o) {
                            return o.instance_type == "c6in.12xlarge" &&
                                   o.capacity_type == CapacityType::Spot;
                          }),
            0);
  const auto it = std::find_if(c.offerings.begin(), c.offerings.end(), [](const Offering& o) {
    return o.key() == "p3.8xlarge/us-east-1b/spot";
  });
  ASSERT_NE(it, c.offerings.end());
  EXPECT_EQ(it->micros_per_hour, 3'672'000);
  EXPECT_EQ(it->allocatable.gpus, 4);
  EXPECT_EQ(it->allocatable.cpu_milli, 31850);
  EXPECT_EQ(c.types[it->type_index].name, "p3.8xlarge");
  const Labels want = {{"node.kubernetes.io/instance-type", "p3.8xlarge"},
                       {"topology.kubernetes.io/zone", "us-east-1b"},
                       {"topology.kubernetes.io/region", "us-east-1"},
                       {"kubernetes.io/arch", "amd64"},
                       {"kubernetes.io/os", "linux"},
                       {"fitscale.io/capacity-type", "spot"},
                       {"fitscale.io/pool", "default"},
                       {"fitscale.io/gpu-model", "V100"},
                       {"fitscale.io/instance-category", "p"},
                       {"fitscale.io/instance-family", "p3"},
                       {"fitscale.io/instance-generation", "3"},
                       {"fitscale.io/instance-size", "8xlarge"},
                       {"fitscale.io/instance-cpu", "32"},
                       {"fitscale.io/instance-memory", "249856"},
                       {"fitscale.io/current-generation", "true"},
                       {"fitscale.io/gpu-count", "4"},
                       {"fitscale.io/gpu-memory", "16384"}};
  EXPECT_EQ(it->labels, want);
  // The default pool taints GPU nodes only.
  EXPECT_EQ(it->taints, (std::vector<Taint>{{"nvidia.com/gpu", "true", TaintEffect::NoSchedule}}));
  EXPECT_TRUE(c.offerings.front().taints.empty());
  const Offering& m5 = c.offerings.front();
  EXPECT_EQ(m5.key(), "m5.large/us-east-1a/on-demand");
  EXPECT_EQ(m5.labels.count("fitscale.io/gpu-model"), 0u) << "CPU types carry no GPU model";
  EXPECT_EQ(c.gpu_models, std::vector<std::string>{"V100"});
  ASSERT_NE(c.find_type("p3.8xlarge"), nullptr);
  EXPECT_EQ(c.find_type("p3.8xlarge")->vcpu, 32);
  EXPECT_EQ(c.find_type("nope"), nullptr);
}

TEST(Catalog, ZonesPoolAndRegionFromOptions) {
  CatalogOptions o;
  o.zones = {"eu-west-1a"};
  o.region = "eu-west-1";
  o.pool = "gpu";
  const Catalog c = build_catalog({type("m5.large", 2, 8192)}, o);
  ASSERT_EQ(c.offerings.size(), 1u);
  EXPECT_EQ(c.offerings[0].labels.at("topology.kubernetes.io/region"), "eu-west-1");
  EXPECT_EQ(c.offerings[0].labels.at("fitscale.io/pool"), "gpu");
}

TEST(Catalog, EmbeddedDefaultIsTheShippedAwsTable) {
  const auto types = parse_catalog_csv(default_catalog_csv(), "embedded");
  EXPECT_EQ(types.size(), 1242u);
  const Catalog c = build_catalog(types, CatalogOptions{});
  EXPECT_EQ(std::count_if(c.types.begin(), c.types.end(),
                          [](const InstanceType& t) { return t.gpu > 0; }),
            56);
  const InstanceType* m5 = c.find_type("m5.large");
  ASSERT_NE(m5, nullptr);
  EXPECT_EQ(m5->memory_mib, 8192);
  EXPECT_DOUBLE_EQ(m5->on_demand_usd_per_hour, 0.096);
  EXPECT_NE(std::find(c.gpu_models.begin(), c.gpu_models.end(), "A100"), c.gpu_models.end());
}

TEST(SpotHazard, BucketMidpointsAsHourlyRates) {
  // Bucket 0 (<5%/month) at 2.5%: -ln(0.975)/730 = 3.468e-5 per hour.
  EXPECT_NEAR(spot_hourly_hazard(0), 3.468e-5, 1e-8);
  // Over a 730-hour month the hazard reproduces the midpoint probability.
  EXPECT_NEAR(1 - std::exp(-730 * spot_hourly_hazard(4)), 0.25, 1e-12);
  EXPECT_LT(spot_hourly_hazard(1), spot_hourly_hazard(2));
  EXPECT_THROW(spot_hourly_hazard(5), InputError);
}

}  // namespace
}  // namespace fitscale
