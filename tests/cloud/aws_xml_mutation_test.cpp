// EC2, Auto Scaling and SQS answers come from a cloud fitscale does not control (or from moto):
// whatever is in them, reading them never throws and never hits undefined behaviour. The same
// contract as fuzz/aws_xml_fuzz.cpp (tests/support/aws_answer.h), on a fixed set of mutations
// of the seed answers in fuzz/seeds/aws_xml/.
#include <gtest/gtest.h>

#include "../support/aws_answer.h"
#include "../support/bad_input.h"
#include "../support/seed_files.h"

namespace fitscale {
namespace {

TEST(AwsXmlMutation, SeedAnswerMutationsAreReadWithoutExceptions) {
  const auto seeds = bad_input::seed_files("aws_xml");
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    SCOPED_TRACE(seeds[i].name);
    EXPECT_EQ(bad_input::violations("", bad_input::bad_inputs(seeds[i].text, 800, i + 1),
                                    [](const std::string& s) { bad_input::read_aws_answer(s); }),
              "");
  }
  EXPECT_GE(seeds.size(), 6u);
}

aws::ApiFacts facts_of(const std::string& xml) {
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_string(xml.c_str()));
  aws::ApiFacts facts;
  aws::parse_instance_types(doc.document_element(), facts);
  aws::parse_spot_prices(doc.document_element(), facts);
  return facts;
}

// Found while writing fuzz/aws_xml_fuzz.cpp (reading the parsers it calls): a spot price of "inf"
// or "1e309" was kept and overflowed the conversion to micro-dollars; sizes the API gave (negative,
// or beyond any instance) overflowed the catalog's capacity arithmetic.
TEST(AwsXmlMutation, PricesAndSizesBeyondTheCatalogLimitsAreLeftOut) {
  const aws::ApiFacts facts = facts_of(
      "<R><spotPriceHistorySet>"
      "<item><instanceType>a</instanceType><availabilityZone>z</availabilityZone><spotPrice>inf</"
      "spotPrice></item>"
      "<item><instanceType>b</instanceType><availabilityZone>z</availabilityZone><spotPrice>1e309</"
      "spotPrice></item>"
      "<item><instanceType>c</instanceType><availabilityZone>z</availabilityZone><spotPrice>0.5</"
      "spotPrice></item>"
      "</spotPriceHistorySet><instanceTypeSet>"
      "<item><instanceType>huge</instanceType><vCpuInfo><defaultVCpus>9223372036854775807</"
      "defaultVCpus></vCpuInfo>"
      "<memoryInfo><sizeInMiB>1024</sizeInMiB></memoryInfo></item>"
      "<item><instanceType>neg</instanceType><vCpuInfo><defaultVCpus>2</defaultVCpus></vCpuInfo>"
      "<memoryInfo><sizeInMiB>-1</sizeInMiB></memoryInfo></item>"
      "<item><instanceType>ok</instanceType><vCpuInfo><defaultVCpus>2</defaultVCpus></vCpuInfo>"
      "<memoryInfo><sizeInMiB>4096</sizeInMiB></memoryInfo></item>"
      "</instanceTypeSet></R>");
  EXPECT_EQ(facts.spot.size(), 1u);
  EXPECT_EQ(facts.spot.count({"c", "z"}), 1u);
  std::vector<InstanceType> table;
  for (const char* name : {"huge", "neg", "ok"}) table.push_back(bad_input::price_table_row(name));
  const aws::ApiCatalog c = aws::merge_api_catalog(facts, table, CatalogOptions{});
  ASSERT_EQ(c.catalog.types.size(), 1u);
  EXPECT_EQ(c.catalog.types[0].name, "ok");
  ASSERT_EQ(c.excluded.size(), 2u);
  EXPECT_EQ(c.excluded[0].instance_type, "huge");
  EXPECT_EQ(c.excluded[0].reason, "the EC2 API reported vcpu 9223372036854775807: never launched");
  EXPECT_EQ(c.excluded[1].reason, "the EC2 API reported memory -1 MiB: never launched");
}

// Found while writing fuzz/aws_xml_fuzz.cpp: a DesiredCapacity of 2147483647 overflowed when grown.
TEST(AwsXmlMutation, GrowingAGroupAtTheLargestDesiredCapacityDoesNotOverflow) {
  aws::AutoScalingGroup g;
  g.desired = 2147483647;
  g.max_size = 2147483647;
  EXPECT_EQ(g.grown_desired(5), 2147483647);
}

}  // namespace
}  // namespace fitscale
