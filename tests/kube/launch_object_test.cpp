// The Launch object's JSON (kube/launch_object.h), as deploy/crds/launches.fitscale.io.yaml
// declares it.
#include "kube/launch_object.h"

#include <gtest/gtest.h>

namespace fitscale {
namespace {

LaunchRecord record() {
  LaunchRecord r;
  r.name = "i-0abc";
  r.instance_id = "i-0abc";
  r.pool = "gpu";
  r.provider = "aws";
  r.instance_type = "g5.xlarge";
  r.zone = "us-east-1a";
  r.capacity_type = CapacityType::OnDemand;
  r.price_micros_per_hour = 1'006'000;
  r.job_namespace = "team-a";
  r.job_name = "train";
  r.pods = {"team-a/train-0"};
  r.pod_count = 1;
  r.status.node_name = "ip-10-0-0-1";
  r.status.provider_id = "aws:///us-east-1a/i-0abc";
  r.status.conditions = {{"Launched", "True", "Launched", "instance launched", 1'700'000'000},
                         {"Removed", "True", "Empty", "empty for 30s", 1'700'000'600}};
  return r;
}

TEST(LaunchObject, SpecAsTheCrdDeclaresIt) {
  const auto j = launch_object(record());
  EXPECT_EQ(j["apiVersion"], "fitscale.io/v1alpha1");
  EXPECT_EQ(j["kind"], "Launch");
  EXPECT_EQ(j["metadata"]["name"], "i-0abc");
  EXPECT_EQ(j["metadata"]["labels"]["fitscale.io/pool"], "gpu");
  EXPECT_EQ(j["spec"]["pool"], "gpu");
  EXPECT_EQ(j["spec"]["offering"]["instanceType"], "g5.xlarge");
  EXPECT_EQ(j["spec"]["offering"]["capacityType"], "on-demand");
  EXPECT_EQ(j["spec"]["offering"]["provider"], "aws");
  EXPECT_DOUBLE_EQ(j["spec"]["usdPerHour"].get<double>(), 1.006);
  EXPECT_EQ(j["spec"]["job"]["namespace"], "team-a");
  EXPECT_EQ(j["spec"]["pods"][0]["name"], "train-0");
  EXPECT_FALSE(j.contains("status"));  // written through the status subresource
}

TEST(LaunchObject, StatusRoundTrips) {
  const LaunchRecord r = record();
  const auto patch = launch_status_patch(r.status);
  EXPECT_EQ(patch["status"]["conditions"][1]["lastTransitionTime"], "2023-11-14T22:23:20Z");
  EXPECT_EQ(launch_status_from(patch), r.status);
}

TEST(LaunchObject, AnUnreadableStatusIsEmptyNotAnError) {
  EXPECT_EQ(launch_status_from(nlohmann::json::parse(R"({"status": 3})")), LaunchStatus{});
  const auto odd = launch_status_from(nlohmann::json::parse(
      R"({"status": {"conditions": [7, {"type": "Removed", "status": "True",
          "lastTransitionTime": "yesterday"}]}})"));
  ASSERT_EQ(odd.conditions.size(), 1u);
  EXPECT_EQ(odd.conditions[0].last_transition, 0);
}

}  // namespace
}  // namespace fitscale
