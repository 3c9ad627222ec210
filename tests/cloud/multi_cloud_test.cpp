// Several providers behind one controller (docs/clouds.md): a launch goes to the provider of its
// offering, listings merge, terminations go to the owner; owned hardware (the static provider)
// takes pods before any cloud, is metered, and is never removed.
#include "controller/multi_cloud.h"

#include <gtest/gtest.h>

#include "../controller/fakes.h"
#include "cloud/static/static_provider.h"
#include "controller/controller.h"
#include "cost/memory_ledger.h"
#include "model/catalog.h"
#include "model/error.h"

namespace fitscale::testing {
namespace {

constexpr Time kStart = 1'780'000'000;

// Two clouds, each with its own zones: "east" (AWS-like names) and "azure". The 4-CPU type is
// cheaper on Azure, the 16-CPU type on east.
constexpr const char* kTwoCloudCsv =
    "instance_type,arch,vcpu,memory_mib,on_demand_usd_per_hour,spot_usd_per_hour,provider,region\n"
    "m5.xlarge,amd64,4,16384,0.192,0.080,east,us-east-1\n"
    "m5.4xlarge,amd64,16,65536,0.768,0.300,east,us-east-1\n"
    "Standard_D4s_v5,amd64,4,16384,0.192,0.040,azure,eastus\n"
    "Standard_D16s_v5,amd64,16,65536,0.768,0.500,azure,eastus\n";

CatalogOptions two_cloud_options() {
  CatalogOptions o;
  o.provider = "east";
  o.places["east"] = ProviderPlace{"us-east-1", {"us-east-1a"}};
  o.places["azure"] = ProviderPlace{"eastus", {"eastus-1"}};
  Pool pool;
  pool.name = "default";
  o.pools = {pool};
  return o;
}

Catalog two_cloud_catalog(CatalogOptions o = two_cloud_options()) {
  return build_catalog(parse_catalog_csv(kTwoCloudCsv, "two-clouds.csv"), o);
}

Policy two_zone_policy() {
  Policy p = tiny_policy();
  p.zones = {"us-east-1a", "eastus-1"};
  return p;
}

struct TwoClouds {
  explicit TwoClouds(Catalog c = two_cloud_catalog(), Policy policy = two_zone_policy())
      : catalog(std::move(c)), clock(kStart), east(clock), azure(clock) {
    east.id_prefix = "i-";
    azure.id_prefix = "vm-";
    ControllerOptions o;
    o.policy = std::move(policy);
    controller = std::make_unique<Controller>(cluster, multi, catalog, clock, nullptr, recorder, o);
  }
  Catalog catalog;
  FakeClock clock;
  FakeCluster cluster;
  FakeCloud east;
  FakeCloud azure;
  MultiCloud multi{{{"east", &east}, {"azure", &azure}}, "east"};
  NullRecorder recorder;
  std::unique_ptr<Controller> controller;
};

TEST(MultiCloud, LaunchGoesToTheProviderItNamesAndAnEmptyOneToTheDefault) {
  FakeClock clock(kStart);
  FakeCloud east(clock);
  FakeCloud azure(clock);
  azure.id_prefix = "vm-";
  MultiCloud multi({{"east", &east}, {"azure", &azure}}, "east");
  LaunchRequest r;
  r.instance_type = "Standard_D4s_v5";
  r.zone = "eastus-1";
  r.provider = "azure";
  const LaunchResult a = multi.launch(r);
  ASSERT_EQ(a.launched.size(), 1u);
  EXPECT_EQ(a.launched[0].provider, "azure");
  EXPECT_EQ(azure.requests.size(), 1u);
  EXPECT_TRUE(east.requests.empty());

  r.provider.clear();
  r.instance_type = "m5.xlarge";
  r.zone = "us-east-1a";
  EXPECT_EQ(multi.launch(r).launched.at(0).provider, "east");
  EXPECT_EQ(east.requests.size(), 1u);

  r.provider = "gcp";  // not configured: refused, launched nowhere
  const LaunchResult g = multi.launch(r);
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_EQ(g.failures[0].code, "UnknownProvider");
  EXPECT_FALSE(g.failures[0].capacity_error);
  EXPECT_EQ(east.requests.size() + azure.requests.size(), 2u);
}

TEST(MultiCloud, ListingMergesProvidersAndTerminationGoesToTheOwnerEvenAfterARestart) {
  FakeClock clock(kStart);
  FakeCloud east(clock);
  FakeCloud azure(clock);
  east.add_instance("i-1", "m5.xlarge", "us-east-1a", CapacityType::Spot, kStart, 80'000);
  azure.add_instance("vm-1", "Standard_D4s_v5", "eastus-1", CapacityType::Spot, kStart, 40'000);
  {
    MultiCloud multi({{"east", &east}, {"azure", &azure}}, "east");
    const auto all = multi.list_instances();
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].provider, "east");
    EXPECT_EQ(all[1].provider, "azure");
    EXPECT_EQ(multi.owner_of("vm-1"), "azure");
  }
  // A new process knows nothing yet: it lists before it terminates, and asks only the owner.
  MultiCloud restarted({{"east", &east}, {"azure", &azure}}, "east");
  restarted.terminate({"vm-1", "gone-long-ago"});
  EXPECT_EQ(azure.terminated, std::vector<std::string>{"vm-1"});
  EXPECT_TRUE(east.terminated.empty());
  EXPECT_EQ(east.instances.size(), 1u);
}

TEST(MultiCloud, GenerationChangesWithAnyProviderAndIdsMustBeUnique) {
  FakeClock clock(kStart);
  FakeCloud east(clock);
  FakeCloud azure(clock);
  MultiCloud multi({{"east", &east}, {"azure", &azure}}, "east");
  const auto before = multi.generation();
  ASSERT_TRUE(before.has_value());
  azure.add_instance("x-1", "Standard_D4s_v5", "eastus-1", CapacityType::Spot, kStart, 1);
  EXPECT_NE(multi.generation(), before);
  east.add_instance("x-1", "m5.xlarge", "us-east-1a", CapacityType::Spot, kStart, 1);
  EXPECT_THROW(multi.list_instances(), std::runtime_error);
  EXPECT_THROW(MultiCloud({{"a", &east}, {"a", &azure}}, "a"), std::invalid_argument);
  EXPECT_THROW(MultiCloud({{"a", &east}}, "b"), std::invalid_argument);
}

TEST(MultiCloud, CatalogRowsSellInTheirProvidersZonesAndCarryItsLabel) {
  const Catalog c = two_cloud_catalog();
  ASSERT_EQ(c.offerings.size(), 8u);
  for (const Offering& o : c.offerings) {
    const bool azure = o.instance_type.rfind("Standard_", 0) == 0;
    EXPECT_EQ(o.provider, azure ? "azure" : "east") << o.key();
    EXPECT_EQ(o.zone, azure ? "eastus-1" : "us-east-1a") << o.key();
    EXPECT_EQ(o.labels.at(std::string(label::kProvider)), o.provider);
    EXPECT_EQ(o.labels.at(std::string(label::kRegion)), azure ? "eastus" : "us-east-1");
  }
  // A catalog without the columns: no provider label, as before.
  const Catalog plain =
      build_catalog(parse_catalog_csv("instance_type,arch,vcpu,memory_mib,on_demand_usd_per_hour\n"
                                      "m5.xlarge,amd64,4,16384,0.192\n",
                                      "plain.csv"),
                    CatalogOptions{});
  ASSERT_FALSE(plain.offerings.empty());
  EXPECT_EQ(plain.offerings[0].labels.count(std::string(label::kProvider)), 0u);
  EXPECT_EQ(plain.offerings[0].labels.at(std::string(label::kRegion)), "us-east-1");
}

TEST(MultiCloud, ANameTwiceInOneProviderOrAZoneInTwoProvidersIsRefused) {
  EXPECT_NO_THROW(parse_catalog_csv(
      "instance_type,arch,vcpu,memory_mib,on_demand_usd_per_hour,provider\n"
      "m5.large,amd64,2,8192,0.096,aws-east\nm5.large,amd64,2,8192,0.107,aws-west\n",
      "c.csv"));
  try {
    parse_catalog_csv(
        "instance_type,arch,vcpu,memory_mib,on_demand_usd_per_hour,provider\n"
        "m5.large,amd64,2,8192,0.096,aws-east\nm5.large,amd64,2,8192,0.107,aws-east\n",
        "c.csv");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("c.csv:3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("aws-east"), std::string::npos) << e.what();
  }
  CatalogOptions o = two_cloud_options();
  o.places["azure"].zones.push_back("us-east-1a");
  EXPECT_THROW(two_cloud_catalog(o), InputError);
}

TEST(MultiCloud, TheControllerLaunchesTheCheapestOfferingOfAnyProviderOnIt) {
  TwoClouds w;
  // 1 CPU: Standard_D4s_v5 spot at $0.04 beats m5.xlarge spot at $0.08.
  w.cluster.add_pod(make_pod("small", 1000, 2 * kGi));
  EXPECT_EQ(w.controller->reconcile().launched, 1);
  ASSERT_EQ(w.azure.requests.size(), 1u);
  EXPECT_EQ(w.azure.requests[0].instance_type, "Standard_D4s_v5");
  EXPECT_EQ(w.azure.requests[0].provider, "azure");
  EXPECT_EQ(w.azure.requests[0].node_labels.at(std::string(label::kProvider)), "azure");
  EXPECT_TRUE(w.east.requests.empty());

  // 12 CPUs: m5.4xlarge spot at $0.30 beats Standard_D16s_v5 at $0.50.
  w.clock.advance(10);
  w.cluster.add_pod(make_pod("big", 12000, 8 * kGi));
  EXPECT_EQ(w.controller->reconcile().launched, 1);
  ASSERT_EQ(w.east.requests.size(), 1u);
  EXPECT_EQ(w.east.requests[0].instance_type, "m5.4xlarge");
  EXPECT_EQ(w.east.requests[0].provider, "east");
}

TEST(MultiCloud, APoolThatNamesAProviderLaunchesOnlyThere) {
  CatalogOptions o = two_cloud_options();
  Pool east_only;
  east_only.name = "east-only";
  east_only.requirements.push_back(
      Requirement{std::string(label::kProvider), SelectorOp::In, {"east"}});
  o.pools = {east_only};
  TwoClouds w(two_cloud_catalog(o));
  w.cluster.add_pod(make_pod("small", 1000, 2 * kGi));
  EXPECT_EQ(w.controller->reconcile().launched, 1);
  EXPECT_TRUE(w.azure.requests.empty());
  ASSERT_EQ(w.east.requests.size(), 1u);
  EXPECT_EQ(w.east.requests[0].instance_type, "m5.xlarge");
}

TEST(MultiCloud, AGangIsLaunchedInOneProvider) {
  TwoClouds w;
  for (int i = 0; i < 3; ++i) {
    Pod p = make_pod("g" + std::to_string(i), 3000, 2 * kGi);
    p.labels["fitscale.io/gang"] = "g";
    p.labels["fitscale.io/gang-size"] = "3";
    w.cluster.add_pod(p);
  }
  EXPECT_EQ(w.controller->reconcile().launched, 3);
  // All three on one provider (azure is cheaper for 4-CPU nodes), none on the other.
  EXPECT_EQ(w.azure.launched_count(), 3);
  EXPECT_EQ(w.east.launched_count(), 0);
}

// --- Owned hardware.

struct OwnedWorld {
  explicit OwnedWorld(Policy policy = two_zone_policy())
      : catalog(two_cloud_catalog()), clock(kStart), east(clock), azure(clock) {
    azure.id_prefix = "vm-";
    StaticProviderOptions so;
    so.name = "owned";
    so.node_selector = {{"example.com/owned", "true"}};
    so.micros_per_hour = 250'000;  // $0.25/h amortized
    owned = std::make_unique<StaticProvider>(
        so, [this]() -> std::optional<std::vector<Node>> { return cluster.state.nodes; }, clock);
    multi = std::make_unique<MultiCloud>(
        std::vector<NamedProvider>{{"east", &east}, {"azure", &azure}, {"owned", owned.get()}},
        "east");
    ControllerOptions o;
    o.policy = std::move(policy);
    o.policy.delay_after_launch_s = 0;
    controller =
        std::make_unique<Controller>(cluster, *multi, catalog, clock, &ledger, recorder, o);
  }
  Node& owned_node(const std::string& name) {
    Node n = make_node(name, 8000, 32 * kGi, "dc-1");
    n.labels["example.com/owned"] = "true";
    n.created = kStart - 86'400 * 365;  // a year old: metered from when fitscale first sees it
    cluster.state.nodes.push_back(n);
    cluster.touch();
    return cluster.state.nodes.back();
  }
  LoopResult loop() { return controller->reconcile(); }

  Catalog catalog;
  FakeClock clock;
  FakeCluster cluster;
  FakeCloud east;
  FakeCloud azure;
  std::unique_ptr<StaticProvider> owned;
  std::unique_ptr<MultiCloud> multi;
  MemoryLedger ledger;
  NullRecorder recorder;
  std::unique_ptr<Controller> controller;
};

TEST(StaticProvider, OwnedNodesAreListedByTheirSelectorAtTheirAmortizedPrice) {
  FakeClock clock(kStart);
  std::vector<Node> nodes = {make_node("rack1-a", 8000, 32 * kGi, "dc-1"),
                             make_node("cloud-b", 8000, 32 * kGi)};
  nodes[0].labels["example.com/owned"] = "true";
  nodes[0].labels[std::string(label::kInstanceType)] = "dell-r750";
  bool synced = true;
  StaticProvider p(
      {"owned", {{"example.com/owned", "true"}}, 250'000},
      [&]() -> std::optional<std::vector<Node>> {
        if (!synced) return std::nullopt;
        return nodes;
      },
      clock);
  auto listed = p.list_instances();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].id, "rack1-a");
  EXPECT_EQ(listed[0].node_name, "rack1-a");
  EXPECT_EQ(listed[0].instance_type, "dell-r750");
  EXPECT_EQ(listed[0].price_micros_per_hour, 250'000);
  EXPECT_TRUE(listed[0].owned);
  EXPECT_EQ(listed[0].launched_at, kStart);
  // An unsynced view keeps the listing (owned nodes do not seem to vanish).
  synced = false;
  EXPECT_EQ(p.list_instances().size(), 1u);
  // Nothing is ever launched or terminated in it.
  LaunchRequest r;
  r.count = 2;
  EXPECT_EQ(p.launch(r).failures.at(0).code, "OwnedHardware");
  p.terminate({"rack1-a"});
  EXPECT_EQ(p.refused_terminations(), std::vector<std::string>{"rack1-a"});
}

TEST(StaticProvider, OwnedNodesTakePodsFirstAndTheBurstBeyondLaunchesInACloud) {
  OwnedWorld w;
  w.owned_node("rack1-a");
  w.loop();  // the static provider lists the owned node (and the ledger starts metering it)
  w.clock.advance(10);
  // Two 3-CPU pods fit the 8-CPU owned node: no launch.
  for (int i = 0; i < 2; ++i) w.cluster.add_pod(make_pod("p" + std::to_string(i), 3000, 2 * kGi));
  EXPECT_EQ(w.loop().launched, 0);
  EXPECT_EQ(w.east.requests.size() + w.azure.requests.size(), 0u);
  // A third does not fit beside them: it launches in a cloud.
  w.clock.advance(10);
  w.cluster.add_pod(make_pod("p2", 3000, 2 * kGi));
  EXPECT_EQ(w.loop().launched, 1);
  EXPECT_EQ(w.azure.launched_count(), 1);
}

TEST(StaticProvider, IdleOwnedNodesStayWhileIdleCloudNodesGoAndBothAreMetered) {
  OwnedWorld w;
  w.owned_node("rack1-a");
  const Instance& cloud = w.azure.add_instance("vm-9", "Standard_D4s_v5", "eastus-1",
                                               CapacityType::Spot, kStart - 3600, 40'000);
  w.cluster.register_node(cloud, w.catalog);
  w.loop();
  for (int i = 0; i < 6; ++i) {
    w.clock.advance(60);
    w.cluster.touch();
    w.loop();
  }
  // The empty cloud node was removed and terminated; the empty owned node is untouched.
  EXPECT_EQ(w.azure.terminated, std::vector<std::string>{"vm-9"});
  EXPECT_TRUE(w.east.terminated.empty());
  EXPECT_TRUE(w.owned->refused_terminations().empty());
  EXPECT_TRUE(w.cluster.has_node("rack1-a"));
  EXPECT_EQ(std::count(w.cluster.deleted.begin(), w.cluster.deleted.end(), "rack1-a"), 0);
  EXPECT_EQ(std::count(w.cluster.cordoned.begin(), w.cluster.cordoned.end(), "rack1-a"), 0);
  // Metered: 360 s at $0.25/h from the first time fitscale saw it = $0.025 = 25,000 micro-$.
  const auto open = w.ledger.open_nodes();
  EXPECT_NE(std::find(open.begin(), open.end(), "rack1-a"), open.end());
  EXPECT_EQ(std::find(open.begin(), open.end(), "vm-9"), open.end());
  Micros total = 0;
  for (const auto& [ns, m] : w.ledger.spent_to_date(w.clock.now())) total += m;
  // The cloud node's cost up to its removal plus the owned node's 360 s: at least the latter.
  EXPECT_GE(total, 25'000);
}

TEST(StaticProvider, ScaleDownNeverProposesOwnedHardwareWhateverItsState) {
  Node n = make_node("rack1-a", 8000, 32 * kGi, "dc-1");
  n.managed = true;
  n.owned = true;
  n.interruption_notice = true;
  EXPECT_FALSE(may_remove(n));
  n.owned = false;
  EXPECT_TRUE(may_remove(n));
  n.managed = false;
  EXPECT_FALSE(may_remove(n));
}

}  // namespace
}  // namespace fitscale::testing
