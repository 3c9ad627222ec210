// The real Controller and planner driving AwsProvider against moto (signature checking on): what
// `fitscale run --provider aws` does each loop, with a scripted cluster of pending pods. The
// catalog is the one fitscale builds from moto's EC2 API merged with the shipped price table.
#include "aws_moto_fixture.h"
#include "controller/controller.h"
#include "model/extended_resource_toleration.h"
#include "planner/plan.h"

namespace fitscale::aws {
namespace {

class PendingPods final : public ClusterView {
 public:
  std::vector<Pod> pods;
  std::uint64_t generation() const override { return 1; }
  ClusterState observe() override {
    ClusterState s;
    s.synced = true;
    s.pods = pods;
    return s;
  }
  bool cordon(const std::string&) override { return true; }
  bool uncordon(const std::string&) override { return true; }
  bool add_taint(const std::string&, const Taint&) override { return true; }
  bool remove_taint(const std::string&, const std::string&) override { return true; }
  EvictOutcome evict(const std::string&, const std::string&) override {
    return EvictOutcome::Evicted;
  }
  bool delete_node(const std::string&) override { return true; }
  bool delete_pod(const std::string&, const std::string&) override { return true; }
  bool remove_scheduling_gate(const std::string&, const std::string&, std::string_view) override {
    return true;
  }
  void record_event(const ObjectRef&, const std::string&, const std::string&,
                    const std::string&) override {}
};

Pod job_pod(const std::string& name, std::int64_t gpus, bool on_demand) {
  Pod p;
  p.ns = "team-a";
  p.name = name;
  p.uid = "uid-" + name;
  p.owner = {"Job", "train", "job-uid"};
  p.requests.cpu_milli = 2000;
  p.requests.memory_bytes = 4LL << 30;
  p.requests.pods = 1;
  p.requests.gpus = gpus;
  if (on_demand) p.node_selector["karpenter.sh/capacity-type"] = "on-demand";
  p.phase = PodPhase::Pending;
  p.created = 1;
  // As the ExtendedResourceToleration admission plugin has it tolerate the GPU nodes' taint.
  add_extended_resource_tolerations(p);
  return p;
}

class AwsControllerMoto : public AwsMoto {
 protected:
  static inline std::unique_ptr<Catalog> catalog;
  static void SetUpTestSuite() {
    AwsMoto::SetUpTestSuite();
    if (::testing::Test::HasFatalFailure()) return;
    Stack s(user, fleet_options("catalog"));
    CatalogOptions zones;
    zones.zones = {"us-east-1a", "us-east-1b"};
    zones.pool = "gpu";  // the config's `pool`: names the default pool, as policy.pool below
    auto facts = fetch_api_facts(s.ec2, zones, s.clock.now());
    catalog = std::make_unique<Catalog>(
        merge_api_catalog(facts, parse_catalog_csv(default_catalog_csv(), "embedded"), zones)
            .catalog);
  }
  static ControllerOptions controller_options(const std::string& cluster) {
    ControllerOptions o;
    o.cluster_name = cluster;
    o.policy.zones = {"us-east-1a", "us-east-1b"};
    o.policy.pool = "gpu";
    return o;
  }
};

TEST_F(AwsControllerMoto, GpuPodGetsTheCheapestFittingSpotInstanceOnceEvenAfterARestart) {
  PendingPods cluster;
  cluster.pods = {job_pod("train-0", 1, false)};
  Stack s(user, fleet_options("ctl-gpu"));
  NullRecorder recorder;
  const auto expected = plan(Snapshot{{}, cluster.pods, {}}, *catalog,
                             controller_options("ctl-gpu").policy, s.clock.now());
  ASSERT_EQ(expected.launch.size(), 1u);
  {
    Controller controller(cluster, s.provider, *catalog, s.clock, nullptr, recorder,
                          controller_options("ctl-gpu"));
    EXPECT_EQ(controller.reconcile().launched, 1);
    // The instance is in flight: later loops count it as capacity and launch nothing more.
    EXPECT_EQ(controller.reconcile().launched, 0);
  }
  // A restarted fitscale (new controller and provider) finds it by tag and launches nothing.
  Stack restarted(user, fleet_options("ctl-gpu"));
  Controller again(cluster, restarted.provider, *catalog, restarted.clock, nullptr, recorder,
                   controller_options("ctl-gpu"));
  EXPECT_EQ(again.reconcile().launched, 0);
  auto listed = restarted.provider.list_instances();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].instance_type, expected.launch[0].instance_type);
  EXPECT_EQ(listed[0].zone, expected.launch[0].zone);
  EXPECT_EQ(listed[0].capacity_type, CapacityType::Spot);
  EXPECT_EQ(listed[0].tags.at("fitscale.io/pool"), "gpu");
  EXPECT_EQ(listed[0].tags.at("fitscale.io/namespace"), "team-a");
  EXPECT_GE(catalog->find_type(listed[0].instance_type)->gpu, 1);
}

TEST_F(AwsControllerMoto, PodRequiringOnDemandGetsAnOnDemandInstance) {
  PendingPods cluster;
  cluster.pods = {job_pod("serve-0", 0, true)};
  Stack s(user, fleet_options("ctl-od"));
  NullRecorder recorder;
  Controller controller(cluster, s.provider, *catalog, s.clock, nullptr, recorder,
                        controller_options("ctl-od"));
  EXPECT_EQ(controller.reconcile().launched, 1);
  auto listed = s.provider.list_instances();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].capacity_type, CapacityType::OnDemand);
}

TEST_F(AwsControllerMoto, InsufficientCapacityForTheCheapestTypeFallsBackToTheNextAndSkipsIt) {
  PendingPods cluster;
  cluster.pods = {job_pod("train-1", 1, false)};
  Stack s(user, fleet_options("ctl-ice"));
  NullRecorder recorder;
  const auto cheapest = plan(Snapshot{{}, cluster.pods, {}}, *catalog,
                             controller_options("ctl-ice").policy, s.clock.now());
  ASSERT_EQ(cheapest.launch.size(), 1u);
  s.faults.no_capacity_type = cheapest.launch[0].instance_type;  // in every zone
  Controller controller(cluster, s.provider, *catalog, s.clock, nullptr, recorder,
                        controller_options("ctl-ice"));
  int launched = 0;
  for (int loop = 0; loop < 6 && launched == 0; ++loop) launched += controller.reconcile().launched;
  ASSERT_EQ(launched, 1);
  auto listed = s.provider.list_instances();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_NE(listed[0].instance_type, s.faults.no_capacity_type);
  EXPECT_EQ(listed[0].capacity_type, CapacityType::Spot);  // spot elsewhere, not on-demand
  const int faults = s.faults.faults;
  EXPECT_GE(faults, 1);
  // Backed off: later loops do not ask for the failed offering again.
  for (int loop = 0; loop < 3; ++loop) controller.reconcile();
  EXPECT_EQ(s.faults.faults, faults);
  EXPECT_EQ(s.provider.list_instances().size(), 1u);
}

// The account's vCPU quota (On-Demand Standard/G/P instances) is an offering-level dead end
// too: the same launch fails every loop until the quota changes, so it is backed off like
// InsufficientInstanceCapacity and the plan moves on, rather than asking for it again each loop.
TEST_F(AwsControllerMoto, VcpuLimitExceededBacksTheOfferingOffInsteadOfRetryingItEveryLoop) {
  PendingPods cluster;
  cluster.pods = {job_pod("train-vcpu", 1, false)};
  Stack s(user, fleet_options("ctl-vcpu"));
  NullRecorder recorder;
  const auto cheapest = plan(Snapshot{{}, cluster.pods, {}}, *catalog,
                             controller_options("ctl-vcpu").policy, s.clock.now());
  ASSERT_EQ(cheapest.launch.size(), 1u);
  s.faults.no_capacity_type = cheapest.launch[0].instance_type;
  s.faults.code = "VcpuLimitExceeded";
  Controller controller(cluster, s.provider, *catalog, s.clock, nullptr, recorder,
                        controller_options("ctl-vcpu"));
  int launched = 0;
  for (int loop = 0; loop < 6 && launched == 0; ++loop) launched += controller.reconcile().launched;
  ASSERT_EQ(launched, 1);
  const int faults = s.faults.faults;
  EXPECT_GE(faults, 1);
  for (int loop = 0; loop < 3; ++loop) controller.reconcile();
  EXPECT_EQ(s.faults.faults, faults) << "the quota-limited offering was asked for again";
  auto listed = s.provider.list_instances();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_NE(listed[0].instance_type, s.faults.no_capacity_type);
}

// Issue 12 item 8: the launch carries what team-a's $20/h cap still allows as the fleet's
// SpotOptions.MaxTotalPrice; moto (which does not model it) accepts the signed request and
// launches, as EC2 does when the fleet fits under it.
TEST_F(AwsControllerMoto, CreateFleetCarriesTheBudgetsRemainingHourlyAllowanceAsMaxTotalPrice) {
  PendingPods cluster;
  cluster.pods = {job_pod("train-cap", 1, false)};
  Stack s(user, fleet_options("ctl-cap"));
  NullRecorder recorder;
  auto options = controller_options("ctl-cap");
  options.policy.budgets = Budgets{};
  options.policy.budgets.namespaces["team-a"].usd_per_hour = 20;
  Controller controller(cluster, s.provider, *catalog, s.clock, nullptr, recorder, options);
  EXPECT_EQ(controller.reconcile().launched, 1);
  ASSERT_EQ(s.faults.create_fleet_bodies.size(), 1u);
  auto form = testing::form_fields(s.faults.create_fleet_bodies[0]);
  EXPECT_EQ(form["SpotOptions.MaxTotalPrice"], "20.000000");
  EXPECT_EQ(s.provider.list_instances().size(), 1u);
}

TEST_F(AwsControllerMoto, WrongSecretLaunchesNothing) {
  PendingPods cluster;
  cluster.pods = {job_pod("train-2", 1, false)};
  Credentials wrong = user;
  wrong.secret_access_key = "wrong";
  Stack good(user, fleet_options("ctl-auth"));
  Stack s(wrong, fleet_options("ctl-auth"));
  NullRecorder recorder;
  Controller controller(cluster, s.provider, *catalog, s.clock, nullptr, recorder,
                        controller_options("ctl-auth"));
  // Listing fails first: the controller cannot see the cloud, so it must not act.
  EXPECT_THROW(controller.reconcile(), AwsError);
  EXPECT_TRUE(good.provider.list_instances().empty());
}

}  // namespace
}  // namespace fitscale::aws
