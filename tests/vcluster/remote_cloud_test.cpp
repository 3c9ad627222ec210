// RemoteSimCloud against a real `fitscale cluster` server on a loopback port: what
// `fitscale run --provider sim` does to launch, list and terminate.
#include <gtest/gtest.h>

#include "cloud/sim/remote_sim_cloud.h"
#include "cloud/sim/sim_cloud.h"
#include "model/catalog.h"
#include "vcluster/virtual_cluster.h"

namespace fitscale::vcluster {
namespace {

class FixedClock final : public Clock {
 public:
  Time now() const override { return 1'800'000'000; }
};

TEST(VclusterRemoteSimCloud, LaunchListTerminateOverHttp) {
  FixedClock clock;
  Catalog catalog =
      build_catalog(parse_catalog_csv(default_catalog_csv(), "embedded"), CatalogOptions{});
  SimCloud sim(catalog, clock, SimCloudOptions{});
  VirtualClusterOptions options;
  options.http.token = "secret";
  VirtualCluster cluster(catalog, sim, &sim, clock, options);
  const int port = cluster.listen("127.0.0.1", 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(port);

  RemoteSimCloud cloud({url, "secret", 5000});
  LaunchRequest req;
  req.instance_type = "g4dn.xlarge";
  req.zone = "us-east-1c";
  req.capacity_type = CapacityType::OnDemand;
  req.count = 2;
  req.pool = "gpu";
  req.owner_namespace = "team-a";
  req.job = "train";
  req.client_token = "tok-1";
  LaunchResult r = cloud.launch(req);
  ASSERT_EQ(r.launched.size(), 2u);
  EXPECT_TRUE(r.failures.empty());
  EXPECT_EQ(r.launched[0].instance_type, "g4dn.xlarge");
  EXPECT_EQ(r.launched[0].capacity_type, CapacityType::OnDemand);
  EXPECT_EQ(r.launched[0].owner_namespace, "team-a");
  EXPECT_EQ(r.launched[0].provider_id, "aws:///us-east-1c/" + r.launched[0].id);
  EXPECT_GT(r.launched[0].price_micros_per_hour, 0);
  // The same client token returns the same instances and launches nothing more.
  EXPECT_EQ(cloud.launch(req).launched.size(), 2u);
  EXPECT_EQ(cloud.list_instances().size(), 2u);

  cloud.terminate({r.launched[0].id});
  auto left = cloud.list_instances();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].id, r.launched[1].id);

  // An injected capacity error comes back as a capacity failure of that offering.
  sim.inject_failure("g4dn.xlarge/us-east-1c/spot", "InsufficientInstanceCapacity", 1);
  req.capacity_type = CapacityType::Spot;
  req.client_token = "tok-2";
  r = cloud.launch(req);
  EXPECT_TRUE(r.launched.empty());
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].code, "InsufficientInstanceCapacity");
  EXPECT_TRUE(r.failures[0].capacity_error);

  // A wrong token is refused: listing throws, launching reports a non-capacity failure.
  RemoteSimCloud wrong({url, "not-the-token", 5000});
  EXPECT_THROW(wrong.list_instances(), std::runtime_error);
  auto refused = wrong.launch(req);
  ASSERT_EQ(refused.failures.size(), 1u);
  EXPECT_FALSE(refused.failures[0].capacity_error);
  cluster.stop();
  // And an unreachable server is an error, not an empty cloud.
  EXPECT_THROW(RemoteSimCloud({url, "", 2000}).list_instances(), std::runtime_error);
}

TEST(VclusterRemoteSimCloud, AQuietCheckIsOneSmallReplyAndAnyChangeMovesTheGeneration) {
  FixedClock clock;
  Catalog catalog =
      build_catalog(parse_catalog_csv(default_catalog_csv(), "embedded"), CatalogOptions{});
  SimCloud sim(catalog, clock, SimCloudOptions{});
  VirtualClusterOptions options;
  options.http.token = "secret";
  VirtualCluster cluster(catalog, sim, &sim, clock, options);
  const std::string url = "http://127.0.0.1:" + std::to_string(cluster.listen("127.0.0.1", 0));
  RemoteSimCloud cloud({url, "secret", 5000});
  LaunchRequest req;
  req.instance_type = "m5.large";
  req.zone = "us-east-1a";
  req.count = 3;
  req.client_token = "tok";
  const LaunchResult r = cloud.launch(req);
  ASSERT_EQ(r.launched.size(), 3u);

  // More machines than the server takes in one request: sent in parts, all launched, and a
  // retry with the same client token launches nothing more.
  LaunchRequest many = req;
  many.count = 2500;
  many.client_token = "tok-many";
  EXPECT_EQ(cloud.launch(many).launched.size(), 2500u);
  EXPECT_EQ(cloud.launch(many).launched.size(), 2500u);
  EXPECT_EQ(cloud.list_instances().size(), 2503u);
  std::vector<std::string> extra;
  for (const auto& i : cloud.list_instances()) {
    if (i.id != r.launched[0].id && i.id != r.launched[1].id && i.id != r.launched[2].id)
      extra.push_back(i.id);
  }
  cloud.terminate(extra);

  const auto g1 = cloud.generation();
  ASSERT_TRUE(g1.has_value()) << "the simulated cloud keeps a generation";
  ASSERT_NE(cloud.lend_instances(), nullptr);
  EXPECT_EQ(cloud.lend_instances()->size(), 3u);
  EXPECT_EQ(cloud.generation(), g1) << "nothing changed";

  cloud.terminate({r.launched[0].id});
  const auto g2 = cloud.generation();
  ASSERT_TRUE(g2.has_value());
  EXPECT_NE(*g2, *g1);
  EXPECT_EQ(cloud.lend_instances()->size(), 2u);
  EXPECT_EQ(cloud.list_instances().size(), 2u);
  // An interruption notice changes what the listing says, so the generation moves too.
  sim.mark_interruption(r.launched[1].id);
  const auto g3 = cloud.generation();
  EXPECT_NE(g3, g2);
  bool noticed = false;
  for (const auto& i : *cloud.lend_instances()) noticed |= i.interruption_notice;
  EXPECT_TRUE(noticed);
  cluster.stop();
  EXPECT_EQ(cloud.generation(), std::nullopt) << "unreachable: the controller lists and fails";
}

}  // namespace
}  // namespace fitscale::vcluster
