#include "cloud/sim/sim_cloud.h"

#include <gtest/gtest.h>

#include <regex>

namespace fitscale {
namespace {

class FixedClock final : public Clock {
 public:
  Time t = 1'000'000;
  Time now() const override { return t; }
};

const char* kCatalogCsv =
    "instance_type,arch,vcpu,memory_mib,gpu,gpu_model,gpu_memory_mib,on_demand_usd_per_hour,"
    "spot_usd_per_hour,spot_interruption_bucket,spot_interruption_label\n"
    "m5.large,amd64,2,8192,0,,0,0.096,0.04,1,5-10%\n"
    "p3.2xlarge,amd64,8,62464,1,V100,16384,3.06,0.918,4,>20%\n"
    "c5.large,amd64,2,4096,0,,0,0.085,,,\n";

Catalog test_catalog() {
  CatalogOptions o;
  o.zones = {"us-east-1a", "us-east-1b"};
  return build_catalog(parse_catalog_csv(kCatalogCsv, "test.csv"), o);
}

LaunchRequest request(std::string type, CapacityType c, int count, std::string token) {
  LaunchRequest r;
  r.instance_type = std::move(type);
  r.zone = "us-east-1a";
  r.capacity_type = c;
  r.count = count;
  r.pool = "default";
  r.owner_namespace = "team-a";
  r.job = "team-a/train";
  r.client_token = std::move(token);
  return r;
}

TEST(SimCloud, LaunchReturnsPendingTaggedInstancesAtCatalogPrice) {
  Catalog cat = test_catalog();
  FixedClock clock;
  SimCloud cloud(cat, clock, {});
  LaunchResult r = cloud.launch(request("p3.2xlarge", CapacityType::Spot, 2, "tok-1"));
  ASSERT_TRUE(r.failures.empty());
  ASSERT_EQ(r.launched.size(), 2u);
  const Instance& a = r.launched[0];
  EXPECT_TRUE(std::regex_match(a.id, std::regex("i-[0-9a-f]{17}"))) << a.id;
  EXPECT_NE(a.id, r.launched[1].id);
  EXPECT_EQ(a.state, "pending");
  EXPECT_EQ(a.provider_id, "aws:///us-east-1a/" + a.id);
  EXPECT_EQ(a.price_micros_per_hour, 918'000);  // spot price, not on-demand
  EXPECT_EQ(a.launched_at, 1'000'000);
  EXPECT_EQ(a.tags.at("fitscale.io/cluster"), "fitscale");
  EXPECT_EQ(a.tags.at("fitscale.io/pool"), "default");
  EXPECT_EQ(a.tags.at("fitscale.io/job"), "team-a/train");
  EXPECT_EQ(a.tags.at("fitscale.io/namespace"), "team-a");
  EXPECT_EQ(cloud.list_instances().size(), 2u);
}

TEST(SimCloud, IdsAreTheSameInEveryRun) {
  Catalog cat = test_catalog();
  FixedClock clock;
  SimCloud one(cat, clock, {}), two(cat, clock, {});
  auto a = one.launch(request("m5.large", CapacityType::OnDemand, 3, "x"));
  auto b = two.launch(request("m5.large", CapacityType::OnDemand, 3, "x"));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(a.launched[i].id, b.launched[i].id);
}

TEST(SimCloud, RetriedClientTokenLaunchesNothingNew) {
  Catalog cat = test_catalog();
  FixedClock clock;
  SimCloud cloud(cat, clock, {});
  auto first = cloud.launch(request("m5.large", CapacityType::Spot, 2, "tok"));
  auto again = cloud.launch(request("m5.large", CapacityType::Spot, 2, "tok"));
  ASSERT_EQ(again.launched.size(), 2u);
  EXPECT_EQ(first.launched[0].id, again.launched[0].id);
  EXPECT_EQ(first.launched[1].id, again.launched[1].id);
  EXPECT_EQ(cloud.list_instances().size(), 2u);
}

TEST(SimCloud, InjectedCapacityFailureIsACapacityErrorAndWearsOff) {
  Catalog cat = test_catalog();
  FixedClock clock;
  SimCloud cloud(cat, clock, {});
  cloud.inject_failure("m5.large/us-east-1a/spot", "InsufficientInstanceCapacity", 1);
  auto failed = cloud.launch(request("m5.large", CapacityType::Spot, 2, "a"));
  EXPECT_TRUE(failed.launched.empty());
  ASSERT_EQ(failed.failures.size(), 1u);
  EXPECT_EQ(failed.failures[0].code, "InsufficientInstanceCapacity");
  EXPECT_EQ(failed.failures[0].offering_key, "m5.large/us-east-1a/spot");
  EXPECT_EQ(failed.failures[0].count, 2);
  EXPECT_TRUE(failed.failures[0].capacity_error);
  // Other offerings of the same type still launch, and the injected failure was used up.
  EXPECT_EQ(cloud.launch(request("m5.large", CapacityType::OnDemand, 1, "b")).launched.size(), 1u);
  EXPECT_EQ(cloud.launch(request("m5.large", CapacityType::Spot, 1, "c")).launched.size(), 1u);
}

TEST(SimCloud, EveryEc2CapacityCodeIsACapacityError) {
  Catalog cat = test_catalog();
  FixedClock clock;
  SimCloud cloud(cat, clock, {});
  int n = 0;
  for (const char* code : {"InsufficientInstanceCapacity", "MaxSpotInstanceCountExceeded",
                           "InstanceLimitExceeded", "SpotMaxPriceTooLow", "Unsupported"}) {
    cloud.inject_failure("m5.large/us-east-1a/spot", code, 1);
    auto r = cloud.launch(request("m5.large", CapacityType::Spot, 1, "t" + std::to_string(n++)));
    ASSERT_EQ(r.failures.size(), 1u) << code;
    EXPECT_TRUE(r.failures[0].capacity_error) << code;
  }
  cloud.inject_failure("m5.large/us-east-1a/spot", "UnauthorizedOperation", 1);
  auto r = cloud.launch(request("m5.large", CapacityType::Spot, 1, "other"));
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_FALSE(r.failures[0].capacity_error);
}

TEST(SimCloud, SpotOfATypeWithoutSpotPriceIsUnsupported) {
  Catalog cat = test_catalog();
  FixedClock clock;
  SimCloud cloud(cat, clock, {});
  auto r = cloud.launch(request("c5.large", CapacityType::Spot, 1, "t"));
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].code, "Unsupported");
  auto unknown = cloud.launch(request("z9.huge", CapacityType::OnDemand, 1, "u"));
  ASSERT_EQ(unknown.failures.size(), 1u);
  EXPECT_FALSE(unknown.failures[0].capacity_error);
}

TEST(SimCloud, TerminateRemovesFromListAndRecordsTheTime) {
  Catalog cat = test_catalog();
  FixedClock clock;
  SimCloud cloud(cat, clock, {});
  auto r = cloud.launch(request("m5.large", CapacityType::Spot, 2, "t"));
  auto gen = cloud.generation();
  clock.t += 600;
  cloud.terminate({r.launched[0].id});
  cloud.terminate({r.launched[0].id});  // twice is harmless
  EXPECT_NE(cloud.generation(), gen);
  auto live = cloud.list_instances();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].id, r.launched[1].id);
  EXPECT_EQ(cloud.find(r.launched[0].id)->state, "terminated");
  EXPECT_EQ(cloud.terminated_at(r.launched[0].id), 1'000'600);
  EXPECT_FALSE(cloud.terminated_at(r.launched[1].id).has_value());
}

TEST(SimCloud, InterruptionNoticeIsVisibleInTheListing) {
  Catalog cat = test_catalog();
  FixedClock clock;
  SimCloud cloud(cat, clock, {});
  auto r = cloud.launch(request("m5.large", CapacityType::Spot, 1, "t"));
  cloud.mark_interruption(r.launched[0].id);
  EXPECT_TRUE(cloud.list_instances().at(0).interruption_notice);
}

// The controller plans on the listing SimCloud lends; if it drifted from the instances
// themselves, the simulator would plan on nodes that are gone or miss a spot notice.
TEST(SimCloud, LentListingIsTheLiveInstancesInIdOrder) {
  Catalog cat = test_catalog();
  FixedClock clock;
  SimCloud cloud(cat, clock, {});
  std::vector<std::string> ids;
  for (int i = 0; i < 20; ++i) {
    for (const auto& inst :
         cloud.launch(request("m5.large", CapacityType::Spot, 1 + i % 3, std::to_string(i)))
             .launched) {
      ids.push_back(inst.id);
    }
  }
  for (std::size_t i = 0; i < ids.size(); i += 3) cloud.terminate({ids[i]});
  for (std::size_t i = 1; i < ids.size(); i += 4) cloud.mark_running(ids[i]);
  for (std::size_t i = 2; i < ids.size(); i += 5) cloud.mark_interruption(ids[i]);
  const std::vector<Instance>* lent = cloud.lend_instances();
  ASSERT_NE(lent, nullptr);
  std::vector<std::string> expected;
  for (const auto& [id, inst] : cloud.all_instances()) {
    if (inst.state != "terminated") expected.push_back(id);
  }
  ASSERT_EQ(lent->size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Instance& got = (*lent)[i];
    const Instance* truth = cloud.find(expected[i]);
    EXPECT_EQ(got.id, truth->id);
    EXPECT_EQ(got.state, truth->state) << got.id;
    EXPECT_EQ(got.interruption_notice, truth->interruption_notice) << got.id;
  }
  EXPECT_EQ(cloud.list_instances().size(), expected.size());
}

TEST(SimCloud, BootDelayDependsOnGpus) {
  Catalog cat = test_catalog();
  FixedClock clock;
  SimCloud cloud(cat, clock, {});
  EXPECT_EQ(cloud.boot_delay("m5.large"), 90);
  EXPECT_EQ(cloud.boot_delay("p3.2xlarge"), 180);
  SimCloudOptions fast;
  fast.boot_delay_cpu_s = 30;
  fast.boot_delay_gpu_s = 60;
  SimCloud quick(cat, clock, fast);
  EXPECT_EQ(quick.boot_delay("m5.large"), 30);
  EXPECT_EQ(quick.boot_delay("p3.2xlarge"), 60);
}

}  // namespace
}  // namespace fitscale
