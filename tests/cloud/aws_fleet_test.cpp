// What fitscale asks CreateFleet for, and how it reads partial fulfilment and errors.
#include <gtest/gtest.h>

#include <map>

#include "cloud/aws/fleet_request.h"
#include "model/error.h"

namespace fitscale::aws {
namespace {

LaunchRequest spot_request() {
  LaunchRequest r;
  r.instance_type = "p3.8xlarge";
  r.zone = "us-east-1b";
  r.capacity_type = CapacityType::Spot;
  r.count = 3;
  r.pool = "gpu";
  r.owner_namespace = "research-a";
  r.job = "research-a/bert";
  r.client_token = "fitscale-c1-42";
  r.price_micros_per_hour = 3672000;
  return r;
}

AwsProviderOptions options() {
  AwsProviderOptions o;
  o.cluster_name = "c1";
  o.launch_template.name = "nodes";
  o.subnets = {{"us-east-1a", "subnet-a"}, {"us-east-1b", "subnet-b"}};
  return o;
}

std::map<std::string, std::string> as_map(const NameValues& p) { return {p.begin(), p.end()}; }

TEST(AwsFleet, SpotRequestUsesTheTemplateTheZonesSubnetAndPriceCapacityOptimized) {
  auto p = as_map(create_fleet_params(spot_request(), options()));
  EXPECT_EQ(p["Type"], "instant");
  EXPECT_EQ(p["LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName"], "nodes");
  EXPECT_EQ(p["LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version"], "$Default");
  EXPECT_EQ(p["LaunchTemplateConfigs.1.Overrides.1.InstanceType"], "p3.8xlarge");
  EXPECT_EQ(p["LaunchTemplateConfigs.1.Overrides.1.SubnetId"], "subnet-b");
  EXPECT_EQ(p["TargetCapacitySpecification.TotalTargetCapacity"], "3");
  EXPECT_EQ(p["TargetCapacitySpecification.DefaultTargetCapacityType"], "spot");
  EXPECT_EQ(p["SpotOptions.AllocationStrategy"], "price-capacity-optimized");
  EXPECT_EQ(p.count("OnDemandOptions.AllocationStrategy"), 0u);
  EXPECT_EQ(p["ClientToken"], "fitscale-c1-42");
  EXPECT_EQ(p["TagSpecification.1.ResourceType"], "instance");
  std::map<std::string, std::string> tags;
  for (int i = 1; p.count("TagSpecification.1.Tag." + std::to_string(i) + ".Key"); ++i) {
    tags[p["TagSpecification.1.Tag." + std::to_string(i) + ".Key"]] =
        p["TagSpecification.1.Tag." + std::to_string(i) + ".Value"];
  }
  EXPECT_EQ(tags["fitscale.io/cluster"], "c1");
  EXPECT_EQ(tags["fitscale.io/pool"], "gpu");
  EXPECT_EQ(tags["fitscale.io/job"], "research-a/bert");
  EXPECT_EQ(tags["fitscale.io/namespace"], "research-a");
}

// Issue 12 item 8: what the budgets' $/h caps still allow rides on the request as the fleet's
// MaxTotalPrice, so EC2 itself stops a launch a bug above would have let overspend.
TEST(AwsFleet, TheBudgetAllowanceIsTheFleetsMaxTotalPriceForItsMarket) {
  auto r = spot_request();
  EXPECT_EQ(as_map(create_fleet_params(r, options())).count("SpotOptions.MaxTotalPrice"), 0u);
  r.max_total_micros_per_hour = 7'344'000;
  auto p = as_map(create_fleet_params(r, options()));
  EXPECT_EQ(p["SpotOptions.MaxTotalPrice"], "7.344000");
  EXPECT_EQ(p.count("OnDemandOptions.MaxTotalPrice"), 0u);
  r.capacity_type = CapacityType::OnDemand;
  r.max_total_micros_per_hour = 0;
  p = as_map(create_fleet_params(r, options()));
  EXPECT_EQ(p["OnDemandOptions.MaxTotalPrice"], "0.000000");
  EXPECT_EQ(p.count("SpotOptions.MaxTotalPrice"), 0u);
}

TEST(AwsFleet, OnDemandUsesLowestPriceAndAZoneWithoutSubnetUsesTheZone) {
  auto r = spot_request();
  r.capacity_type = CapacityType::OnDemand;
  r.zone = "us-east-1c";
  auto o = options();
  o.launch_template = {"", "lt-0abc", "7"};
  auto p = as_map(create_fleet_params(r, o));
  EXPECT_EQ(p["TargetCapacitySpecification.DefaultTargetCapacityType"], "on-demand");
  EXPECT_EQ(p["OnDemandOptions.AllocationStrategy"], "lowest-price");
  EXPECT_EQ(p.count("SpotOptions.AllocationStrategy"), 0u);
  EXPECT_EQ(p["LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateId"], "lt-0abc");
  EXPECT_EQ(p["LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version"], "7");
  EXPECT_EQ(p["LaunchTemplateConfigs.1.Overrides.1.AvailabilityZone"], "us-east-1c");
}

TEST(AwsFleet, NoLaunchTemplateIsAConfigError) {
  auto o = options();
  o.launch_template = {};
  EXPECT_THROW(create_fleet_params(spot_request(), o), InputError);
}

TEST(AwsFleet, LongClientTokensAreHashedToAwsLimitDeterministically) {
  const std::string long_token(100, 'x');
  EXPECT_EQ(fleet_client_token(long_token).size(), 64u);
  EXPECT_EQ(fleet_client_token(long_token), fleet_client_token(long_token));
  EXPECT_EQ(fleet_client_token("short"), "short");
}

pugi::xml_document parse(const std::string& xml) {
  pugi::xml_document d;
  d.load_string(xml.c_str());
  return d;
}

TEST(AwsFleet, PartialFulfilmentKeepsWhatCameUpAndReportsTheCapacityErrorForTheRest) {
  auto d = parse(
      "<CreateFleetResponse><fleetId>fleet-1</fleetId>"
      "<errorSet><item><errorCode>InsufficientInstanceCapacity</errorCode><errorMessage>no p3 in 1b"
      "</errorMessage><lifecycle>spot</lifecycle></item></errorSet>"
      "<fleetInstanceSet><item><lifecycle>spot</lifecycle><instanceIds><item>i-1</item></"
      "instanceIds>"
      "<instanceType>p3.8xlarge</instanceType></item></fleetInstanceSet></CreateFleetResponse>");
  auto r = parse_create_fleet(d.document_element(), spot_request(), 1000);
  ASSERT_EQ(r.launched.size(), 1u);
  EXPECT_EQ(r.launched[0].id, "i-1");
  EXPECT_EQ(r.launched[0].provider_id, "aws:///us-east-1b/i-1");
  EXPECT_EQ(r.launched[0].capacity_type, CapacityType::Spot);
  EXPECT_EQ(r.launched[0].launched_at, 1000);
  EXPECT_EQ(r.launched[0].price_micros_per_hour, 3672000);
  EXPECT_EQ(r.launched[0].job, "research-a/bert");
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].offering_key, "p3.8xlarge/us-east-1b/spot");
  EXPECT_EQ(r.failures[0].count, 2);
  EXPECT_EQ(r.failures[0].code, "InsufficientInstanceCapacity");
  EXPECT_TRUE(r.failures[0].capacity_error);
}

TEST(AwsFleet, AnAllOrNothingRequestAsksForItsWholeCountInOneZoneOfOneType) {
  LaunchRequest r = spot_request();
  EXPECT_EQ(as_map(create_fleet_params(r, options())).count("SpotOptions.MinTargetCapacity"), 0u);
  r.all_or_nothing = true;
  auto p = as_map(create_fleet_params(r, options()));
  EXPECT_EQ(p.at("SpotOptions.MinTargetCapacity"), "3");
  EXPECT_EQ(p.at("SpotOptions.SingleInstanceType"), "true");
  EXPECT_EQ(p.at("SpotOptions.SingleAvailabilityZone"), "true");
  r.capacity_type = CapacityType::OnDemand;
  p = as_map(create_fleet_params(r, options()));
  EXPECT_EQ(p.at("OnDemandOptions.MinTargetCapacity"), "3");
  EXPECT_EQ(p.at("OnDemandOptions.SingleAvailabilityZone"), "true");
  EXPECT_EQ(p.count("SpotOptions.MinTargetCapacity"), 0u);
}

TEST(AwsFleet, APartialAnswerToAnAllOrNothingRequestLaunchesNothingAndNamesWhatToTerminate) {
  auto d = parse(
      "<CreateFleetResponse><fleetId>fleet-1</fleetId>"
      "<fleetInstanceSet><item><lifecycle>spot</lifecycle><instanceIds><item>i-1</item>"
      "<item>i-2</item></instanceIds></item></fleetInstanceSet></CreateFleetResponse>");
  LaunchRequest r = spot_request();
  r.all_or_nothing = true;
  auto a = parse_create_fleet(d.document_element(), r, 1000);
  EXPECT_TRUE(a.launched.empty());
  EXPECT_EQ(a.to_terminate, (std::vector<std::string>{"i-1", "i-2"}));
  ASSERT_EQ(a.failures.size(), 1u);
  EXPECT_EQ(a.failures[0].count, 3);
  EXPECT_TRUE(a.failures[0].capacity_error);
  EXPECT_EQ(a.failures[0].code, "UnfulfilledCapacity");
}

TEST(AwsFleet, OnlyCapacityCodesAreCapacityErrors) {
  for (const char* code :
       {"InsufficientInstanceCapacity", "MaxSpotInstanceCountExceeded", "InstanceLimitExceeded",
        "VcpuLimitExceeded", "InsufficientHostCapacity", "InsufficientFreeAddressesInSubnet",
        "SpotMaxPriceTooLow", "Unsupported"}) {
    auto d = parse(std::string("<R><errorSet><item><errorCode>") + code +
                   "</errorCode></item></errorSet></R>");
    EXPECT_TRUE(
        parse_create_fleet(d.document_element(), spot_request(), 0).failures[0].capacity_error)
        << code;
  }
  for (const char* code : {"InvalidLaunchTemplateName.NotFoundException", "UnauthorizedOperation",
                           "InvalidParameterValue", "AuthFailure"}) {
    auto d = parse(std::string("<R><errorSet><item><errorCode>") + code +
                   "</errorCode></item></errorSet></R>");
    auto f = parse_create_fleet(d.document_element(), spot_request(), 0).failures[0];
    EXPECT_FALSE(f.capacity_error) << code;
    EXPECT_EQ(f.code, code);
  }
}

TEST(AwsFleet, ACapacityCodeAmongOtherErrorsDecides) {
  auto d = parse(
      "<R><errorSet><item><errorCode>InvalidFleetConfiguration</errorCode></item>"
      "<item><errorCode>MaxSpotInstanceCountExceeded</errorCode></item></errorSet></R>");
  auto f = parse_create_fleet(d.document_element(), spot_request(), 0).failures[0];
  EXPECT_EQ(f.code, "MaxSpotInstanceCountExceeded");
  EXPECT_TRUE(f.capacity_error);
  EXPECT_EQ(f.count, 3);
}

}  // namespace
}  // namespace fitscale::aws

namespace fitscale::aws {
namespace {

// Issue 15 item 2: a pool's template.launchTemplate wins over aws.launchTemplate.
TEST(AwsFleet, APoolsLaunchTemplateIsTheOneItsInstancesBootFrom) {
  LaunchRequest r;
  r.instance_type = "p3.8xlarge";
  r.zone = "us-east-1a";
  r.launch_template_id = "lt-0gpu";
  r.launch_template_version = "4";
  AwsProviderOptions o;
  o.launch_template = {"nodes", "", ""};
  auto p = create_fleet_params(r, o);
  std::map<std::string, std::string> m(p.begin(), p.end());
  EXPECT_EQ(m["LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateId"], "lt-0gpu");
  EXPECT_EQ(m.count("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName"), 0u);
  EXPECT_EQ(m["LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version"], "4");
  // Without one, the config's, as before.
  r.launch_template_id.clear();
  p = create_fleet_params(r, o);
  m = {p.begin(), p.end()};
  EXPECT_EQ(m["LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName"], "nodes");
}

}  // namespace
}  // namespace fitscale::aws
