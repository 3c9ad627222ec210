// The shipped GCP catalog (data/gcp-us-central1.csv, sources in docs/gcp.md): it parses, it
// holds the machine types and GPUs it claims at cluster-autoscaler's GCE prices, and beside the
// AWS catalog its rows sell in the GCP provider's zones, so the cheapest offering is picked
// across both clouds.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "model/catalog.h"
#include "model/labels.h"

namespace fitscale {
namespace {

std::vector<InstanceType> shipped(const std::string& file, const std::string& provider) {
  std::ifstream in(std::string(FITSCALE_SOURCE_DIR) + "/data/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<InstanceType> types = parse_catalog_csv(ss.str(), file);
  for (auto& t : types) t.provider = provider;
  return types;
}

const InstanceType& find(const std::vector<InstanceType>& types, const std::string& name) {
  auto it = std::find_if(types.begin(), types.end(),
                         [&](const InstanceType& t) { return t.name == name; });
  EXPECT_NE(it, types.end()) << name;
  return *it;
}

TEST(GcpCatalog, TheShippedCatalogHasTheMachineTypesGpusAndBothPrices) {
  const auto types = shipped("gcp-us-central1.csv", "gcp");
  EXPECT_EQ(types.size(), 193u);
  EXPECT_EQ(
      std::count_if(types.begin(), types.end(), [](const InstanceType& t) { return t.gpu > 0; }),
      17);
  const InstanceType& n2 = find(types, "n2-standard-8");
  EXPECT_EQ(n2.vcpu, 8);
  EXPECT_EQ(n2.memory_mib, 32768);
  EXPECT_DOUBLE_EQ(n2.on_demand_usd_per_hour, 0.3885);
  ASSERT_TRUE(n2.spot_usd_per_hour);
  EXPECT_DOUBLE_EQ(*n2.spot_usd_per_hour, 0.094);
  EXPECT_EQ(n2.region, "us-central1");
  const InstanceType& l4 = find(types, "g2-standard-24");
  EXPECT_EQ(l4.gpu, 2);
  EXPECT_EQ(l4.gpu_model, "L4");
  const InstanceType& a100 = find(types, "a2-ultragpu-8g");
  EXPECT_EQ(a100.gpu, 8);
  EXPECT_EQ(a100.gpu_memory_mib, 81920);
  EXPECT_EQ(find(types, "n1-standard-1").memory_mib, 3840);  // 3.75 GB per vCPU
  // e2-micro and e2-small at their real prices, not cluster-autoscaler's raised ones.
  EXPECT_DOUBLE_EQ(find(types, "e2-micro").on_demand_usd_per_hour, 0.00838);
}

TEST(GcpCatalog, BesideAwsItsRowsSellInTheGcpZonesAndTheCheapestIsPickedAcrossClouds) {
  std::vector<InstanceType> types = shipped("aws-us-east-1.csv", "aws");
  const auto gcp = shipped("gcp-us-central1.csv", "gcp");
  types.insert(types.end(), gcp.begin(), gcp.end());
  CatalogOptions o;
  o.provider = "aws";
  o.places["aws"] = {"us-east-1", {"us-east-1a"}};
  o.places["gcp"] = {"us-central1", {"us-central1-a", "us-central1-b"}};
  const Catalog c = build_catalog(types, o);
  const Offering* cheapest_l4 = nullptr;
  for (const Offering& off : c.offerings) {
    const bool is_gcp = off.provider == "gcp";
    EXPECT_EQ(off.zone.rfind(is_gcp ? "us-central1-" : "us-east-1", 0), 0u) << off.key();
    EXPECT_EQ(off.labels.at(std::string(label::kRegion)), is_gcp ? "us-central1" : "us-east-1");
    const InstanceType& t = c.types[off.type_index];
    if (t.gpu_model == "L4" && off.capacity_type == CapacityType::OnDemand &&
        (!cheapest_l4 || off.micros_per_hour < cheapest_l4->micros_per_hour))
      cheapest_l4 = &off;
  }
  // One L4 on demand: g2-standard-4 at $0.76/h in GCP beats AWS's g6.xlarge at $0.8048/h.
  ASSERT_NE(cheapest_l4, nullptr);
  EXPECT_EQ(cheapest_l4->provider, "gcp");
  EXPECT_EQ(cheapest_l4->instance_type, "g2-standard-4");
}

}  // namespace
}  // namespace fitscale
