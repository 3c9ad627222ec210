// The catalog from the EC2 API merged with the shipped price table: sizes from the API, prices
// from the table or the live spot price, and a type nobody can price is never offered.
#include <gtest/gtest.h>

#include <map>

#include "aws_fake_transport.h"
#include "cloud/aws/api_catalog.h"

namespace fitscale::aws {
namespace {

InstanceType row(std::string name, double od, std::optional<double> spot) {
  InstanceType t;
  t.name = std::move(name);
  t.arch = "amd64";
  t.vcpu = 1;
  t.memory_mib = 1024;
  t.on_demand_usd_per_hour = od;
  t.spot_usd_per_hour = spot;
  if (spot) t.spot_interruption_bucket = 0;
  return t;
}

ApiFacts facts() {
  ApiFacts f;
  f.types["g4dn.xlarge"] = {"g4dn.xlarge", "amd64", 4, 16384, 1, "T4", 16384};
  f.types["m5.large"] = {"m5.large", "amd64", 2, 8192, 0, "", 0};
  f.types["x9.unpriced"] = {"x9.unpriced", "arm64", 8, 32768, 0, "", 0};
  f.offered = {{"g4dn.xlarge", "us-east-1a"},
               {"m5.large", "us-east-1a"},
               {"m5.large", "us-east-1b"},
               {"x9.unpriced", "us-east-1a"}};
  f.spot = {{{"g4dn.xlarge", "us-east-1a"}, 0.2104}};
  return f;
}

CatalogOptions two_zones() {
  CatalogOptions o;
  o.zones = {"us-east-1a", "us-east-1b"};
  return o;
}

const Offering* find(const Catalog& c, const std::string& key) {
  for (const auto& o : c.offerings) {
    if (o.key() == key) return &o;
  }
  return nullptr;
}

TEST(AwsApiCatalog, UnpricedTypeIsNeverOfferedAndSaysWhy) {
  auto c = merge_api_catalog(
      facts(),
      {row("g4dn.xlarge", 0.526, 0.2), row("m5.large", 0.096, 0.04), row("p3.2xlarge", 3.06, 1.0)},
      two_zones());
  for (const auto& o : c.catalog.offerings) EXPECT_NE(o.instance_type, "x9.unpriced");
  ASSERT_EQ(c.excluded.size(), 2u);
  EXPECT_EQ(c.excluded[0].instance_type, "p3.2xlarge");
  EXPECT_EQ(c.excluded[0].reason, "not offered by the EC2 API in us-east-1");
  EXPECT_EQ(c.excluded[1].instance_type, "x9.unpriced");
  EXPECT_EQ(c.excluded[1].reason, "no known on-demand price: never launched");
}

TEST(AwsApiCatalog, OfferingsOnlyInZonesTheApiOffersWithLiveSpotPrices) {
  auto c = merge_api_catalog(
      facts(), {row("g4dn.xlarge", 0.526, 0.2), row("m5.large", 0.096, 0.04)}, two_zones());
  ASSERT_NE(find(c.catalog, "g4dn.xlarge/us-east-1a/spot"), nullptr);
  EXPECT_EQ(find(c.catalog, "g4dn.xlarge/us-east-1a/spot")->micros_per_hour, 210400);  // live
  EXPECT_EQ(find(c.catalog, "g4dn.xlarge/us-east-1a/on-demand")->micros_per_hour, 526000);
  EXPECT_EQ(find(c.catalog, "g4dn.xlarge/us-east-1b/spot"), nullptr);  // not offered in 1b
  EXPECT_EQ(find(c.catalog, "m5.large/us-east-1b/spot")->micros_per_hour, 40000);  // table estimate
  const auto* g4 = c.catalog.find_type("g4dn.xlarge");
  ASSERT_NE(g4, nullptr);
  EXPECT_EQ(g4->gpu, 1);
  EXPECT_EQ(g4->gpu_model, "T4");
  EXPECT_EQ(g4->vcpu, 4);  // sizes from the API, not the table's placeholder
}

TEST(AwsApiCatalog, ParsesTheApiShapes) {
  pugi::xml_document d;
  d.load_string(
      "<DescribeInstanceTypesResponse><instanceTypeSet><item><instanceType>g5.xlarge</instanceType>"
      "<processorInfo><supportedArchitectures><item>x86_64</item></supportedArchitectures></"
      "processorInfo>"
      "<vCpuInfo><defaultVCpus>4</defaultVCpus></vCpuInfo><memoryInfo><sizeInMiB>16384</"
      "sizeInMiB></memoryInfo>"
      "<gpuInfo><gpus><item><name>A10G</name><manufacturer>NVIDIA</manufacturer><count>1</count>"
      "<memoryInfo><sizeInMiB>24576</sizeInMiB></memoryInfo></item></gpus></gpuInfo></item>"
      "<item><instanceType>m7g.large</"
      "instanceType><processorInfo><supportedArchitectures><item>arm64</item>"
      "</supportedArchitectures></processorInfo><vCpuInfo><defaultVCpus>2</defaultVCpus></vCpuInfo>"
      "<memoryInfo><sizeInMiB>8192</sizeInMiB></memoryInfo></item></instanceTypeSet></"
      "DescribeInstanceTypesResponse>");
  ApiFacts f;
  parse_instance_types(d.document_element(), f);
  EXPECT_EQ(f.types["g5.xlarge"].gpu, 1);
  EXPECT_EQ(f.types["g5.xlarge"].gpu_model, "A10G");
  EXPECT_EQ(f.types["g5.xlarge"].gpu_memory_mib, 24576);
  EXPECT_EQ(f.types["m7g.large"].arch, "arm64");
  EXPECT_EQ(f.types["m7g.large"].gpu, 0);
  pugi::xml_document s;
  s.load_string(
      "<DescribeSpotPriceHistoryResponse><spotPriceHistorySet><item><instanceType>g5.xlarge</"
      "instanceType>"
      "<availabilityZone>us-east-1a</availabilityZone><spotPrice>0.401200</spotPrice></item>"
      "<item><instanceType>g5.xlarge</instanceType><availabilityZone>us-east-1a</availabilityZone>"
      "<spotPrice>0.9</spotPrice></item></spotPriceHistorySet></DescribeSpotPriceHistoryResponse>");
  parse_spot_prices(s.document_element(), f);
  EXPECT_DOUBLE_EQ((f.spot[{"g5.xlarge", "us-east-1a"}]), 0.4012);  // newest (first) wins
}

TEST(AwsApiCatalog, TypePatternsAreEc2Wildcards) {
  EXPECT_TRUE(matches_type_pattern("g5.xlarge", "g5.*"));
  EXPECT_TRUE(matches_type_pattern("g5.xlarge", "g5.xlarge"));
  EXPECT_TRUE(matches_type_pattern("m5d.large", "m5?.large"));
  EXPECT_TRUE(matches_type_pattern("p4de.24xlarge", "p*.*"));
  EXPECT_FALSE(matches_type_pattern("g5g.xlarge", "g5.*"));
  EXPECT_FALSE(matches_type_pattern("m5.large", "m5?.large"));
  EXPECT_FALSE(matches_type_pattern("g5.xlarge", "g5"));
}

TEST(AwsApiCatalog, ARestrictedQueryDoesNotCallUnaskedTableTypesMissing) {
  ApiFacts f = facts();
  f.type_patterns = {"g4dn.*", "m5.large", "x9.*"};
  auto c = merge_api_catalog(f,
                             {row("g4dn.xlarge", 0.526, 0.2), row("m5.large", 0.096, 0.04),
                              row("p3.2xlarge", 3.06, 1.0), row("g4dn.2xlarge", 0.75, 0.3)},
                             two_zones());
  ASSERT_EQ(c.excluded.size(), 2u);
  EXPECT_EQ(c.excluded[0].instance_type, "g4dn.2xlarge");  // asked for, and the API has none
  EXPECT_EQ(c.excluded[1].instance_type, "x9.unpriced");   // p3.2xlarge was not asked for
}

TEST(AwsApiCatalog, SpotRefreshRepricesOfferingsInPlace) {
  auto c = merge_api_catalog(
      facts(), {row("g4dn.xlarge", 0.526, 0.2), row("m5.large", 0.096, 0.04)}, two_zones());
  const Offering* before = find(c.catalog, "m5.large/us-east-1b/spot");
  ASSERT_NE(before, nullptr);
  const int changed = apply_spot_prices(c.catalog, {{{"m5.large", "us-east-1b"}, 0.031},
                                                    {{"g4dn.xlarge", "us-east-1a"}, 0.2104},
                                                    {{"m5.large", "us-east-1z"}, 0.01}});
  EXPECT_EQ(changed, 1);  // g4dn's price did not move; 1z is no offering
  EXPECT_EQ(find(c.catalog, "m5.large/us-east-1b/spot"), before);  // same object
  EXPECT_EQ(before->micros_per_hour, 31000);
  EXPECT_EQ(find(c.catalog, "m5.large/us-east-1a/spot")->micros_per_hour, 40000);  // no new price
  EXPECT_EQ(find(c.catalog, "m5.large/us-east-1b/on-demand")->micros_per_hour, 96000);
}

TEST(AwsApiCatalog, ARestrictedFetchAsksTheOtherApisAboutTheTypesFoundOnly) {
  testing::FakeTransport http;
  testing::RecordingSleeper sleeper;
  testing::FixedClock clock;
  QueryClient ec2(http, {"AKID", "secret", "", "test"},
                  ec2_service("us-east-1", "http://127.0.0.1:5000"), clock, sleeper,
                  [] { return 0.0; });
  http.answers.push_back(
      {200,
       "<DescribeInstanceTypesResponse><instanceTypeSet><item><instanceType>g5.xlarge</"
       "instanceType>"
       "</item><item><instanceType>g5.2xlarge</instanceType></item></instanceTypeSet>"
       "</DescribeInstanceTypesResponse>",
       ""});
  http.answers.push_back(
      {200,
       "<DescribeInstanceTypeOfferingsResponse><instanceTypeOfferingSet><item><instanceType>"
       "g5.xlarge</instanceType><location>us-east-1b</location></item></instanceTypeOfferingSet>"
       "</DescribeInstanceTypeOfferingsResponse>",
       ""});
  http.answers.push_back({200,
                          "<DescribeSpotPriceHistoryResponse><spotPriceHistorySet/></"
                          "DescribeSpotPriceHistoryResponse>",
                          ""});
  CatalogOptions o = two_zones();
  auto f = fetch_api_facts(ec2, o, clock.now(), {"g5.*"});
  ASSERT_EQ(http.sent.size(), 3u);
  auto types = testing::form_fields(http.sent[0].body);
  EXPECT_EQ(types["Filter.1.Name"], "instance-type");
  EXPECT_EQ(types["Filter.1.Value.1"], "g5.%2A");
  auto offerings = testing::form_fields(http.sent[1].body);
  EXPECT_EQ(offerings["Filter.1.Value.2"], "us-east-1b");
  EXPECT_EQ(offerings["Filter.2.Name"], "instance-type");
  EXPECT_EQ(offerings["Filter.2.Value.1"], "g5.2xlarge");
  EXPECT_EQ(offerings["Filter.2.Value.2"], "g5.xlarge");
  auto spot = testing::form_fields(http.sent[2].body);
  EXPECT_EQ(spot["Action"], "DescribeSpotPriceHistory");
  EXPECT_EQ(spot["InstanceType.1"], "g5.2xlarge");
  EXPECT_EQ(spot["Filter.1.Value.1"], "us-east-1a");
  EXPECT_EQ(f.types.size(), 2u);
  EXPECT_EQ(f.offered.count({"g5.xlarge", "us-east-1b"}), 1u);
}

}  // namespace
}  // namespace fitscale::aws
