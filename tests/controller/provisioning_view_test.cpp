// ProvisioningRequests through the real Controller and planner (docs/kueue.md): an atomic
// request launches all its nodes at once and is Provisioned once they hold its pods; its
// capacity is booked against other pending pods; consuming pods trigger nothing; a
// check-capacity request never launches.
#include "controller/provisioning_view.h"

#include <gtest/gtest.h>

#include "controller/controller.h"
#include "fakes.h"

namespace fitscale::testing {
namespace {

constexpr Time kStart = 1'780'000'000;

class FakeStore final : public ProvisioningRequestStore {
 public:
  std::vector<ProvisioningRequest> items;
  std::map<std::string, std::map<std::string, Pod>> by_ns;
  int writes = 0;

  bool synced() const override { return true; }
  std::uint64_t generation() const override { return generation_; }
  std::vector<ProvisioningRequest> requests() const override { return items; }
  std::map<std::string, Pod> templates(const std::string& ns) const override {
    auto it = by_ns.find(ns);
    return it == by_ns.end() ? std::map<std::string, Pod>{} : it->second;
  }
  std::vector<BadObject> bad_objects() const override { return {}; }
  std::string write_conditions(const ProvisioningRequest& r,
                               const std::vector<RequestCondition>& conditions) override {
    ++writes;
    ++generation_;
    for (auto& i : items)
      if (i.key() == r.key()) i.conditions = conditions;
    return "";
  }
  const ProvisioningRequest& get(const std::string& name) const {
    for (const auto& i : items)
      if (i.name == name) return i;
    throw std::runtime_error("no request " + name);
  }
  std::string status(const std::string& name, std::string_view type) const {
    const RequestCondition* c = get(name).condition(type);
    return c == nullptr ? "" : c->status + " " + c->reason;
  }

 private:
  std::uint64_t generation_ = 1;
};

struct World {
  World()
      : catalog(tiny_catalog()),
        clock(kStart),
        cloud(clock),
        view(cluster, store, clock, catalog, tiny_policy()) {
    ControllerOptions o;
    o.policy = tiny_policy();
    controller = std::make_unique<Controller>(view, cloud, catalog, clock, nullptr, recorder, o);
    Pod worker = make_pod("ppt-train", 3000, 8 * kGi);
    store.by_ns["team-a"]["ppt-train"] = worker;
  }
  void add_request(const std::string& name, std::string_view cls, std::int64_t count) {
    ProvisioningRequest r;
    r.ns = "team-a";
    r.name = name;
    r.generation = 1;
    r.created = clock.now();
    r.class_name = std::string(cls);
    r.pod_sets = {{"ppt-train", count}};
    store.items.push_back(r);
  }
  void register_all() {
    for (const Instance& i : cloud.instances)
      if (!cluster.has_node("node-" + i.id)) cluster.register_node(i, catalog);
  }
  LoopResult loop() {
    clock.advance(10);
    return controller->reconcile();
  }
  Catalog catalog;
  FakeClock clock;
  FakeCluster cluster;
  FakeCloud cloud;
  FakeStore store;
  NullRecorder recorder;
  ProvisioningRequestView view;
  std::unique_ptr<Controller> controller;
};

Pod consumer(const std::string& name, const std::string& request) {
  Pod p = make_pod(name, 3000, 8 * kGi);
  p.annotations[std::string(provreq::kConsumeAnnotation)] = request;
  return p;
}

TEST(ProvisioningView, AnAtomicRequestLaunchesAllItsNodesTogetherAndIsProvisionedOnceTheyAreUp) {
  World w;
  w.add_request("train-prov", provreq::kAtomicScaleUpClass, 4);
  // 4 x 3 CPU: one "big" node (16 CPU) is as cheap as four small ones; either way one decision.
  EXPECT_GE(w.loop().launched, 1);
  ASSERT_EQ(w.cloud.requests.size(), 1u) << "one launch decision for the whole gang";
  const int launched = w.cloud.launched_count();
  EXPECT_EQ(w.store.status("train-prov", "Accepted"), "True Accepted");
  EXPECT_EQ(w.store.status("train-prov", "Provisioned"), "") << "nodes not up yet";
  EXPECT_EQ(w.loop().launched, 0) << "in flight: nothing launched twice";
  EXPECT_TRUE(w.cluster.events.empty()) << "no Event on pods that do not exist";

  w.register_all();
  EXPECT_EQ(w.loop().launched, 0);
  EXPECT_EQ(w.store.status("train-prov", "Provisioned"), "True CapacityIsProvisioned");

  // Another team's pending pod does not take the booked capacity: it would fit on the new
  // node(s) without the booking (5 of 16 CPU), not next to it, so it gets its own node.
  w.cluster.add_pod(make_pod("other", 5000, 8 * kGi, 0, "team-b"));
  EXPECT_EQ(w.loop().launched, 1);

  // Kueue's pods arrive: they use the booking and trigger nothing.
  for (int i = 0; i < 4; ++i)
    w.cluster.add_pod(consumer("train-" + std::to_string(i), "train-prov"));
  EXPECT_EQ(w.loop().launched, 0);
  EXPECT_EQ(w.cloud.launched_count(), launched + 1);
  EXPECT_EQ(w.store.status("train-prov", "Provisioned"), "True CapacityIsProvisioned");
}

TEST(ProvisioningView, TheBookingOfAProvisionedRequestExpiresAfterTenMinutes) {
  World w;
  w.add_request("p", provreq::kAtomicScaleUpClass, 2);
  w.loop();
  w.register_all();
  w.loop();
  ASSERT_EQ(w.store.status("p", "Provisioned"), "True CapacityIsProvisioned");
  w.clock.advance(provreq::kBookingSeconds);
  w.loop();
  EXPECT_EQ(w.store.status("p", "BookingExpired"), "True CapacityReservationTimeExpired");
  // The capacity is free again: a pending pod fits on it without a launch.
  w.cluster.add_pod(make_pod("late", 3000, 8 * kGi));
  EXPECT_EQ(w.loop().launched, 0);
}

TEST(ProvisioningView, CheckCapacityThatDoesNotFitLaunchesNothing) {
  World w;
  w.add_request("check", provreq::kCheckCapacityClass, 2);
  EXPECT_EQ(w.loop().launched, 0);
  EXPECT_EQ(w.store.status("check", "Provisioned"), "False CapacityIsNotFound");
  EXPECT_EQ(w.cloud.launched_count(), 0);
}

TEST(ProvisioningView, CheckCapacityThatFitsIsProvisioned) {
  World w;
  w.add_request("big", provreq::kAtomicScaleUpClass, 2);
  w.loop();
  w.register_all();
  w.loop();
  w.add_request("check", provreq::kCheckCapacityClass, 1);
  EXPECT_EQ(w.loop().launched, 0);
  EXPECT_EQ(w.store.status("check", "Provisioned"), "False CapacityIsNotFound")
      << "the nodes are booked by the first request";
  w.clock.advance(provreq::kBookingSeconds);
  w.loop();
  w.loop();
  EXPECT_EQ(w.store.status("check", "Provisioned"), "True CapacityIsFound");
}

TEST(ProvisioningView, ConsumingPodsTriggerNothingEvenWithoutTheirRequest) {
  World w;
  w.cluster.add_pod(consumer("orphan", "gone"));
  EXPECT_EQ(w.loop().launched, 0);
}

}  // namespace
}  // namespace fitscale::testing
