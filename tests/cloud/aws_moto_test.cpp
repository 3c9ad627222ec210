// AwsProvider against an independent implementation of the EC2 and Auto Scaling APIs: moto_server,
// started on a free 127.0.0.1 port with signature checking on, driven with an IAM user's keys.
#include <algorithm>
#include <set>

#include "aws_moto_fixture.h"

namespace fitscale::aws {
namespace {

TEST_F(AwsMoto, SpotLaunchComesUpTaggedFromTheTemplateInTheZonesSubnet) {
  Stack s(user, fleet_options("c-spot"));
  auto result = s.provider.launch(request("g4dn.xlarge", "us-east-1b", CapacityType::Spot, 2));
  ASSERT_TRUE(result.failures.empty()) << result.failures[0].message;
  ASSERT_EQ(result.launched.size(), 2u);
  EXPECT_EQ(result.launched[0].provider_id, "aws:///us-east-1b/" + result.launched[0].id);

  auto listed = s.provider.list_instances();
  ASSERT_EQ(listed.size(), 2u);
  for (const auto& i : listed) {
    EXPECT_EQ(i.instance_type, "g4dn.xlarge");
    EXPECT_EQ(i.zone, "us-east-1b");
    EXPECT_EQ(i.capacity_type, CapacityType::Spot);
    EXPECT_EQ(i.tags.at("fitscale.io/cluster"), "c-spot");
    EXPECT_EQ(i.pool, "gpu");
    EXPECT_EQ(i.job, "team-a/train");
    EXPECT_EQ(i.owner_namespace, "team-a");
    EXPECT_GT(i.launched_at, 0);
  }
  // Read back through the raw API: the subnet of the zone and the configured launch template.
  auto doc = s.ec2.call("DescribeInstances", {{"InstanceId.1", listed[0].id}});
  auto inst = doc->document_element()
                  .child("reservationSet")
                  .child("item")
                  .child("instancesSet")
                  .child("item");
  EXPECT_EQ(std::string(inst.child_value("subnetId")), subnets["us-east-1b"]);
  EXPECT_EQ(std::string(inst.child_value("imageId")), "ami-12c6146b");
}

TEST_F(AwsMoto, OnDemandRequestGetsAnOnDemandInstance) {
  Stack s(user, fleet_options("c-od"));
  auto result = s.provider.launch(request("m5.large", "us-east-1a", CapacityType::OnDemand, 1));
  ASSERT_EQ(result.launched.size(), 1u);
  auto listed = s.provider.list_instances();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].capacity_type, CapacityType::OnDemand);
  EXPECT_EQ(listed[0].zone, "us-east-1a");
}

TEST_F(AwsMoto, WrongSecretIsAClearAuthenticationErrorAndLaunchesNothing) {
  Credentials wrong = user;
  wrong.secret_access_key = "not-the-secret";
  Stack bad(wrong, fleet_options("c-auth"));
  auto result = bad.provider.launch(request("m5.large", "us-east-1a", CapacityType::Spot, 1));
  EXPECT_TRUE(result.launched.empty());
  ASSERT_EQ(result.failures.size(), 1u);
  EXPECT_EQ(result.failures[0].code, "AuthFailure") << result.failures[0].message;
  EXPECT_FALSE(result.failures[0].capacity_error);
  EXPECT_NE(result.failures[0].message.find("AWS refused the credentials"), std::string::npos);
  EXPECT_EQ(result.failures[0].message.find("not-the-secret"), std::string::npos);
  try {
    bad.provider.list_instances();
    FAIL() << "listing with a wrong secret must fail";
  } catch (const AwsError& e) {
    EXPECT_EQ(e.code(), "AuthFailure");
  }
  Stack good(user, fleet_options("c-auth"));
  EXPECT_TRUE(good.provider.list_instances().empty());
}

TEST_F(AwsMoto, InsufficientCapacityIsACapacityErrorAndTheNextOfferingLaunches) {
  Stack s(user, fleet_options("c-ice"));
  s.faults.no_capacity_type = "p3.2xlarge";
  auto first = s.provider.launch(request("p3.2xlarge", "us-east-1a", CapacityType::Spot, 1));
  EXPECT_TRUE(first.launched.empty());
  ASSERT_EQ(first.failures.size(), 1u);
  EXPECT_EQ(first.failures[0].code, "InsufficientInstanceCapacity");
  EXPECT_TRUE(first.failures[0].capacity_error);
  EXPECT_EQ(first.failures[0].offering_key, "p3.2xlarge/us-east-1a/spot");
  EXPECT_EQ(first.failures[0].count, 1);
  auto next = s.provider.launch(request("g4dn.xlarge", "us-east-1a", CapacityType::Spot, 1));
  ASSERT_EQ(next.launched.size(), 1u);
  auto listed = s.provider.list_instances();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].instance_type, "g4dn.xlarge");
  EXPECT_EQ(s.faults.faults, 1);
}

TEST_F(AwsMoto, ARestartedProviderFindsEveryInstanceByTagAndTerminatesThem) {
  std::vector<std::string> ids;
  {
    Stack before(user, fleet_options("c-restart"));
    auto r = before.provider.launch(request("c5.large", "us-east-1a", CapacityType::Spot, 3));
    ASSERT_EQ(r.launched.size(), 3u);
    for (const auto& i : r.launched) ids.push_back(i.id);
    // Another cluster's instances are never ours.
    Stack other(user, fleet_options("c-other"));
    ASSERT_EQ(other.provider.launch(request("c5.large", "us-east-1a", CapacityType::Spot, 1))
                  .launched.size(),
              1u);
  }
  Stack after(user, fleet_options("c-restart"));
  auto listed = after.provider.list_instances();
  std::vector<std::string> found;
  for (const auto& i : listed) found.push_back(i.id);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(found, ids);
  after.provider.terminate(found);
  EXPECT_TRUE(after.provider.list_instances().empty());
  // Terminating again (a retried removal) is not an error.
  EXPECT_NO_THROW(after.provider.terminate({found[0]}));
}

TEST_F(AwsMoto, AutoScalingGroupScalesFromZeroToNWithinMaxAndBack) {
  Stack s(user, fleet_options("c-asg"));
  s.asg.call("CreateAutoScalingGroup", {{"AutoScalingGroupName", "c-asg-m5"},
                                        {"LaunchTemplate.LaunchTemplateName", "asg-nodes"},
                                        {"LaunchTemplate.Version", "$Latest"},
                                        {"MinSize", "0"},
                                        {"MaxSize", "3"},
                                        {"DesiredCapacity", "0"},
                                        {"VPCZoneIdentifier", subnets["us-east-1a"]},
                                        {"Tags.member.1.Key", "fitscale.io/cluster"},
                                        {"Tags.member.1.Value", "c-asg"},
                                        {"Tags.member.1.PropagateAtLaunch", "true"},
                                        {"Tags.member.2.Key", "fitscale.io/pool"},
                                        {"Tags.member.2.Value", "cpu"},
                                        {"Tags.member.2.PropagateAtLaunch", "true"}});
  auto o = fleet_options("c-asg");
  o.mode = AwsMode::Asg;
  Stack a(user, o);
  auto groups = a.provider.groups();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].instance_type, "m5.large");  // from the group's launch template
  EXPECT_TRUE(a.provider.list_instances().empty());

  auto up = a.provider.launch(request("m5.large", "us-east-1a", CapacityType::OnDemand, 2));
  EXPECT_TRUE(up.failures.empty());
  ASSERT_EQ(up.launched.size(), 2u);
  EXPECT_EQ(a.provider.list_instances().size(), 2u);
  // Auto Scaling lists no launch time; without one an in-flight member looked launched in 1970
  // and was terminated as never registered. A provider that did not launch them asks EC2.
  Stack b(user, o);
  for (const auto& i : b.provider.list_instances()) {
    EXPECT_GT(i.launched_at, 1'700'000'000) << i.id;
  }

  auto over = a.provider.launch(request("m5.large", "us-east-1a", CapacityType::OnDemand, 5));
  EXPECT_EQ(over.launched.size(), 1u);
  ASSERT_EQ(over.failures.size(), 1u);
  EXPECT_EQ(over.failures[0].code, "AutoScalingGroupAtMaxSize");
  EXPECT_EQ(over.failures[0].count, 4);
  EXPECT_EQ(a.provider.groups()[0].desired, 3);

  auto none = a.provider.launch(request("p3.2xlarge", "us-east-1a", CapacityType::OnDemand, 1));
  ASSERT_EQ(none.failures.size(), 1u);
  EXPECT_EQ(none.failures[0].code, "NoMatchingAutoScalingGroup");

  std::vector<std::string> ids;
  for (const auto& i : a.provider.list_instances()) ids.push_back(i.id);
  ASSERT_EQ(ids.size(), 3u);
  a.provider.terminate(ids);
  EXPECT_EQ(a.provider.groups()[0].desired, 0);
  EXPECT_TRUE(a.provider.list_instances().empty());
}

// MinSize is the group's floor: fitscale neither lists those members as its own (so the planner
// never removes their nodes) nor asks Auto Scaling to go below it; what it launched above the
// floor it scales back down to the floor.
TEST_F(AwsMoto, AutoScalingGroupNeverGoesBelowMinSize) {
  Stack s(user, fleet_options("c-asg-min"));
  s.asg.call("CreateAutoScalingGroup", {{"AutoScalingGroupName", "c-asg-min-m5"},
                                        {"LaunchTemplate.LaunchTemplateName", "asg-nodes"},
                                        {"LaunchTemplate.Version", "$Latest"},
                                        {"MinSize", "1"},
                                        {"MaxSize", "4"},
                                        {"DesiredCapacity", "1"},
                                        {"VPCZoneIdentifier", subnets["us-east-1a"]},
                                        {"Tags.member.1.Key", "fitscale.io/cluster"},
                                        {"Tags.member.1.Value", "c-asg-min"},
                                        {"Tags.member.1.PropagateAtLaunch", "true"}});
  auto o = fleet_options("c-asg-min");
  o.mode = AwsMode::Asg;
  Stack a(user, o);
  auto groups = a.provider.groups();
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(groups[0].members.size(), 1u);
  EXPECT_TRUE(a.provider.list_instances().empty()) << "the MinSize member was offered as removable";

  auto up = a.provider.launch(request("m5.large", "us-east-1a", CapacityType::OnDemand, 2));
  EXPECT_TRUE(up.failures.empty());
  EXPECT_EQ(a.provider.groups()[0].desired, 3);
  auto listed = a.provider.list_instances();
  ASSERT_EQ(listed.size(), 2u);  // of three members: one is the floor
  // The floor is the oldest member, by launch time then id: within the same second as the
  // launch it may be one of the new ones, so find the one not listed.
  std::vector<std::string> ids;
  for (const auto& i : listed) ids.push_back(i.id);
  std::string floor;
  const auto grown = a.provider.groups();
  for (const auto& m : grown[0].members) {
    if (std::find(ids.begin(), ids.end(), m.id) == ids.end()) floor = m.id;
  }
  ASSERT_FALSE(floor.empty());
  // Asked to remove everything, the floor member included: the group stops at MinSize.
  ids.insert(ids.begin(), floor);
  a.provider.terminate(ids);
  auto after = a.provider.groups();
  EXPECT_EQ(after[0].desired, 1);
  int live = 0;
  for (const auto& m : after[0].members) live += member_is_live(m) ? 1 : 0;
  EXPECT_EQ(live, 1);
  for (const auto& m : after[0].members) {
    if (member_is_live(m)) {
      EXPECT_EQ(m.id, floor);
    }
  }
  EXPECT_TRUE(a.provider.list_instances().empty());
  s.asg.call("DeleteAutoScalingGroup",
             {{"AutoScalingGroupName", "c-asg-min-m5"}, {"ForceDelete", "true"}});
}

}  // namespace
}  // namespace fitscale::aws

namespace fitscale::aws {
namespace {

TEST_F(AwsMoto, CatalogFromTheApiKeepsPricedTypesMotoKnowsAndExcludesTheRest) {
  Stack s(user, fleet_options("c-catalog"));
  CatalogOptions zones;
  zones.zones = {"us-east-1a", "us-east-1b"};
  auto facts = fetch_api_facts(s.ec2, zones, s.clock.now());
  EXPECT_GT(facts.types.size(), 500u);
  auto table = parse_catalog_csv(default_catalog_csv(), "embedded catalog");
  auto c = merge_api_catalog(facts, table, zones);
  const auto* g4 = c.catalog.find_type("g4dn.xlarge");
  ASSERT_NE(g4, nullptr);
  EXPECT_EQ(g4->gpu, 1);
  // moto bundles no p3 types: priced in the table, absent from the API -> excluded with a reason.
  bool p3_excluded = false;
  for (const auto& e : c.excluded) p3_excluded = p3_excluded || e.instance_type == "p3.2xlarge";
  EXPECT_TRUE(p3_excluded);
  for (const auto& o : c.catalog.offerings) EXPECT_NE(o.instance_type, "p3.2xlarge");
  EXPECT_GT(c.catalog.offerings.size(), 1000u);
}

TEST_F(AwsMoto, CatalogRestrictedToFamiliesHoldsThoseOnlyInTheZonesMotoOffersThem) {
  Stack s(user, fleet_options("c-catalog-few"));
  CatalogOptions zones;
  zones.zones = {"us-east-1a", "us-east-1b"};
  auto facts = fetch_api_facts(s.ec2, zones, s.clock.now(), {"g4dn.*", "p4de.*", "mac1.metal"});
  std::set<std::string> names;
  for (const auto& [name, t] : facts.types) names.insert(name);
  EXPECT_TRUE(names.count("g4dn.xlarge"));
  EXPECT_TRUE(names.count("p4de.24xlarge"));
  EXPECT_TRUE(names.count("mac1.metal"));
  EXPECT_FALSE(names.count("g5.xlarge"));
  auto c =
      merge_api_catalog(facts, parse_catalog_csv(default_catalog_csv(), "embedded catalog"), zones);
  std::set<std::string> zones_of_p4de;
  for (const auto& o : c.catalog.offerings) {
    EXPECT_TRUE(o.instance_type.rfind("g4dn.", 0) == 0 || o.instance_type == "p4de.24xlarge")
        << o.key();
    if (o.instance_type == "p4de.24xlarge") zones_of_p4de.insert(o.zone);
  }
  EXPECT_EQ(zones_of_p4de, std::set<std::string>{"us-east-1b"});  // moto: 1b and 1c only
  ASSERT_EQ(c.excluded.size(), 1u);  // nothing outside the patterns is called missing
  EXPECT_EQ(c.excluded[0].instance_type, "mac1.metal");
}

}  // namespace
}  // namespace fitscale::aws

namespace fitscale::aws {
namespace {

TEST_F(AwsMoto, NoLaunchTemplateIsAConfigErrorNotACapacityError) {
  auto o = fleet_options("c-nolt");
  o.launch_template = {};
  Stack s(user, o);
  auto r = s.provider.launch(request("m5.large", "us-east-1a", CapacityType::Spot, 1));
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].code, "InvalidConfig");
  EXPECT_FALSE(r.failures[0].capacity_error);
  EXPECT_NE(r.failures[0].message.find("aws.launchTemplate"), std::string::npos);
  EXPECT_TRUE(s.provider.list_instances().empty());
}

// Issue 16 item 2: a gang's nodes of one offering are one CreateFleet instant request that EC2
// serves whole or not at all.
TEST_F(AwsMoto, AGangIsOneFleetWithMinTargetCapacityInOneZoneAndComesUpWhole) {
  Stack s(user, fleet_options("c-gang"));
  LaunchRequest r = request("g4dn.xlarge", "us-east-1a", CapacityType::Spot, 3);
  r.all_or_nothing = true;
  auto result = s.provider.launch(r);
  ASSERT_TRUE(result.failures.empty()) << result.failures[0].message;
  EXPECT_EQ(result.launched.size(), 3u);
  ASSERT_EQ(s.faults.create_fleet_bodies.size(), 1u);
  const std::string& body = s.faults.create_fleet_bodies[0];
  EXPECT_NE(body.find("SpotOptions.MinTargetCapacity=3"), std::string::npos) << body;
  EXPECT_NE(body.find("SpotOptions.SingleAvailabilityZone=true"), std::string::npos) << body;
  EXPECT_NE(body.find("SpotOptions.SingleInstanceType=true"), std::string::npos) << body;
  EXPECT_EQ(s.provider.list_instances().size(), 3u);
}

TEST_F(AwsMoto, APartOfAGangIsTerminatedAtOnceAndTheOfferingBackedOff) {
  Stack s(user, fleet_options("c-gang-part"));
  s.faults.partial_answer = true;
  LaunchRequest r = request("g4dn.xlarge", "us-east-1b", CapacityType::Spot, 3);
  r.all_or_nothing = true;
  auto result = s.provider.launch(r);
  EXPECT_TRUE(result.launched.empty());
  ASSERT_EQ(result.failures.size(), 1u);
  EXPECT_EQ(result.failures[0].count, 3);
  EXPECT_TRUE(result.failures[0].capacity_error) << "the offering is backed off";
  EXPECT_NE(result.failures[0].message.find("all or nothing: terminating the 2 that did launch"),
            std::string::npos)
      << result.failures[0].message;
  // The two that the answer named are gone; only the one it hid (which EC2 would not have
  // launched) is left.
  auto left = s.provider.list_instances();
  ASSERT_EQ(left.size(), 1u);
  ASSERT_EQ(s.faults.hidden.size(), 1u);
  EXPECT_EQ(left[0].id, s.faults.hidden[0]);
  s.provider.terminate({left[0].id});
}

TEST_F(AwsMoto, ALoneLaunchKeepsWhatAPartialAnswerBrought) {
  Stack s(user, fleet_options("c-lone-part"));
  s.faults.partial_answer = true;
  auto result = s.provider.launch(request("g4dn.xlarge", "us-east-1b", CapacityType::Spot, 3));
  EXPECT_EQ(result.launched.size(), 2u);
  ASSERT_EQ(result.failures.size(), 1u);
  EXPECT_EQ(result.failures[0].count, 1);
  EXPECT_EQ(s.faults.create_fleet_bodies[0].find("MinTargetCapacity"), std::string::npos);
  std::vector<std::string> ids;
  for (const auto& i : s.provider.list_instances()) ids.push_back(i.id);
  s.provider.terminate(ids);
}

}  // namespace
}  // namespace fitscale::aws
