// Reserved capacity on EC2 (docs/reserved-capacity.md): what DescribeCapacityReservations says
// becomes the reservations fitscale launches into first, and a reserved launch asks CreateFleet
// to use them. moto 5.2.1 has no DescribeCapacityReservations handler, so the answer below is
// written from the EC2 API reference's CapacityReservation shape (its element names, in the
// Query API's lowerCamel form) rather than recorded from moto.
#include <gtest/gtest.h>

#include <map>

#include "cloud/aws/capacity_reservations.h"
#include "cloud/aws/fleet_request.h"

namespace fitscale::aws {
namespace {

constexpr const char* kAnswer = R"(<?xml version="1.0" encoding="UTF-8"?>
<DescribeCapacityReservationsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
  <requestId>3d9d7d4c-7ec5-4d8e-9b3a-6e0b5c0a1f2e</requestId>
  <capacityReservationSet>
    <item>
      <capacityReservationId>cr-1234abcd56EXAMPLE</capacityReservationId>
      <ownerId>123456789012</ownerId>
      <instanceType>p4d.24xlarge</instanceType>
      <instancePlatform>Linux/UNIX</instancePlatform>
      <availabilityZone>us-east-1a</availabilityZone>
      <tenancy>default</tenancy>
      <totalInstanceCount>4</totalInstanceCount>
      <availableInstanceCount>4</availableInstanceCount>
      <state>active</state>
      <startDate>2026-01-01T00:00:00.000Z</startDate>
      <endDateType>unlimited</endDateType>
      <instanceMatchCriteria>open</instanceMatchCriteria>
      <reservationType>default</reservationType>
      <tagSet><item><key>team</key><value>ml</value></item></tagSet>
    </item>
    <item>
      <capacityReservationId>cr-0b10c4abcdEXAMPLE</capacityReservationId>
      <instanceType>p5.48xlarge</instanceType>
      <availabilityZone>us-east-1b</availabilityZone>
      <totalInstanceCount>2</totalInstanceCount>
      <availableInstanceCount>2</availableInstanceCount>
      <state>active</state>
      <startDate>2026-01-05T11:30:00.000Z</startDate>
      <endDate>2026-01-07T11:30:00.000Z</endDate>
      <endDateType>limited</endDateType>
      <instanceMatchCriteria>targeted</instanceMatchCriteria>
      <reservationType>capacity-block</reservationType>
    </item>
    <item>
      <capacityReservationId>cr-scheduledEXAMPLE</capacityReservationId>
      <instanceType>p5.48xlarge</instanceType>
      <availabilityZone>us-east-1b</availabilityZone>
      <totalInstanceCount>8</totalInstanceCount>
      <state>scheduled</state>
      <reservationType>capacity-block</reservationType>
    </item>
    <item>
      <capacityReservationId>cr-targetedEXAMPLE</capacityReservationId>
      <instanceType>m5.xlarge</instanceType>
      <availabilityZone>us-east-1a</availabilityZone>
      <totalInstanceCount>3</totalInstanceCount>
      <state>active</state>
      <instanceMatchCriteria>targeted</instanceMatchCriteria>
      <reservationType>default</reservationType>
    </item>
    <item>
      <capacityReservationId>cr-hugeEXAMPLE</capacityReservationId>
      <instanceType>m5.xlarge</instanceType>
      <availabilityZone>us-east-1a</availabilityZone>
      <totalInstanceCount>99999999999999999999</totalInstanceCount>
      <state>active</state>
    </item>
  </capacityReservationSet>
  <nextToken>page-2</nextToken>
</DescribeCapacityReservationsResponse>)";

TEST(AwsReservations, ActiveOpenReservationsAndCapacityBlocksAreRead) {
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(kAnswer));
  std::vector<Reservation> out;
  const std::string next =
      parse_describe_capacity_reservations(doc.child("DescribeCapacityReservationsResponse"), out);
  EXPECT_EQ(next, "page-2");
  // Scheduled (not begun), targeted ODCRs (never filled by fitscale's launches) and a count
  // that is no count are left out.
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].id, "cr-1234abcd56EXAMPLE");
  EXPECT_EQ(out[0].kind, ReservationKind::CapacityReservation);
  EXPECT_EQ(out[0].instance_type, "p4d.24xlarge");
  EXPECT_EQ(out[0].zone, "us-east-1a");
  EXPECT_EQ(out[0].instance_count, 4);
  EXPECT_FALSE(out[0].end.has_value()) << "endDateType unlimited";
  EXPECT_EQ(out[0].tags.at("team"), "ml");
  EXPECT_EQ(out[0].usd_per_hour, 0.0);
  EXPECT_EQ(out[1].id, "cr-0b10c4abcdEXAMPLE");
  EXPECT_EQ(out[1].kind, ReservationKind::CapacityBlock);
  ASSERT_TRUE(out[1].end.has_value());
  EXPECT_EQ(format_rfc3339(*out[1].end), "2026-01-07T11:30:00Z");
}

TEST(AwsReservations, TheRequestAsksForActiveOnesByIdOrAllInPages) {
  const NameValues all = describe_capacity_reservations_params({}, "page-2");
  const std::map<std::string, std::string> a(all.begin(), all.end());
  EXPECT_EQ(a.at("Filter.1.Name"), "state");
  EXPECT_EQ(a.at("Filter.1.Value.1"), "active");
  EXPECT_EQ(a.at("MaxResults"), "500");
  EXPECT_EQ(a.at("NextToken"), "page-2");
  const NameValues some = describe_capacity_reservations_params({"cr-1", "cr-2"});
  const std::map<std::string, std::string> s(some.begin(), some.end());
  EXPECT_EQ(s.at("CapacityReservationId.1"), "cr-1");
  EXPECT_EQ(s.at("CapacityReservationId.2"), "cr-2");
  EXPECT_EQ(s.count("MaxResults"), 0u);
}

LaunchRequest reserved_request(const std::string& type) {
  LaunchRequest r;
  r.instance_type = "p5.48xlarge";
  r.zone = "us-east-1b";
  r.capacity_type = CapacityType::Reserved;
  r.count = 2;
  r.node_labels = {{std::string(label::kCapacityReservationId), "cr-0b10c4abcdEXAMPLE"},
                   {std::string(label::kCapacityReservationType), type}};
  return r;
}

std::map<std::string, std::string> fleet_params(const LaunchRequest& r) {
  AwsProviderOptions o;
  o.cluster_name = "c1";
  o.launch_template.name = "nodes";
  const NameValues p = create_fleet_params(r, o);
  return {p.begin(), p.end()};
}

std::string tag_value(const std::map<std::string, std::string>& p, const std::string& key) {
  for (int i = 1; p.count("TagSpecification.1.Tag." + std::to_string(i) + ".Key"); ++i) {
    if (p.at("TagSpecification.1.Tag." + std::to_string(i) + ".Key") == key)
      return p.at("TagSpecification.1.Tag." + std::to_string(i) + ".Value");
  }
  return "";
}

TEST(AwsReservations, AnOdcrLaunchIsOnDemandThatUsesReservationsFirst) {
  const auto p = fleet_params(reserved_request("default"));
  EXPECT_EQ(p.at("TargetCapacitySpecification.DefaultTargetCapacityType"), "on-demand");
  EXPECT_EQ(p.at("OnDemandOptions.CapacityReservationOptions.UsageStrategy"),
            "use-capacity-reservations-first");
  EXPECT_EQ(tag_value(p, "fitscale.io/capacity-reservation-id"), "cr-0b10c4abcdEXAMPLE");
}

TEST(AwsReservations, ACapacityBlockLaunchAsksForCapacityBlockCapacity) {
  const auto p = fleet_params(reserved_request("capacity-block"));
  EXPECT_EQ(p.at("TargetCapacitySpecification.DefaultTargetCapacityType"), "capacity-block");
  EXPECT_EQ(p.count("OnDemandOptions.CapacityReservationOptions.UsageStrategy"), 0u);
}

TEST(AwsReservations, AFailedReservedLaunchBacksOffThatReservationOnly) {
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(
      "<CreateFleetResponse><fleetInstanceSet/><errorSet><item><errorCode>"
      "InsufficientInstanceCapacity</errorCode><errorMessage>none</errorMessage></item>"
      "</errorSet></CreateFleetResponse>"));
  const FleetAnswer a =
      parse_create_fleet(doc.child("CreateFleetResponse"), reserved_request("default"), 0);
  ASSERT_EQ(a.failures.size(), 1u);
  EXPECT_EQ(a.failures[0].offering_key, "p5.48xlarge/us-east-1b/reserved/cr-0b10c4abcdEXAMPLE");
}

}  // namespace
}  // namespace fitscale::aws
