// A GPU node that registered Ready before its device plugin reported its GPUs (allocatable
// nvidia.com/gpu 0 or absent for the first seconds or minutes): the GPU pods it was launched for
// wait for it as they waited while it booted, and nothing is launched for them again.
#include <gtest/gtest.h>

#include "controller/controller.h"
#include "fakes.h"

namespace fitscale::testing {
namespace {

constexpr Time kStart = 1'780'000'000;

Catalog gpu_catalog() {
  return make_catalog({TypeSpec("gpu1", 8000, 32 * kGi, 1, 1.0, 3.0, "V100")}, {"us-east-1a"});
}

struct GpuWorld {
  GpuWorld() : catalog(gpu_catalog()), clock(kStart), cloud(clock) {
    ControllerOptions o;
    o.policy = tiny_policy();
    controller = std::make_unique<Controller>(cluster, cloud, catalog, clock, nullptr, recorder, o);
  }
  Catalog catalog;
  FakeClock clock;
  FakeCluster cluster;
  FakeCloud cloud;
  NullRecorder recorder;
  std::unique_ptr<Controller> controller;
  LoopResult loop() { return controller->reconcile(); }
};

TEST(GpusUnreported, AReadyGpuNodeWithoutItsGpusYetIsWaitedForNotLaunchedForAgain) {
  GpuWorld w;
  w.cluster.add_pod(make_pod("train", 1000, 2 * kGi, 1));
  EXPECT_EQ(w.loop().launched, 1);
  // Its kubelet registers Ready; the device plugin has not reported the GPU yet.
  w.clock.advance(60);
  Node& n = w.cluster.register_node(w.cloud.instances.at(0), w.catalog);
  n.allocatable.gpus = 0;
  for (int i = 0; i < 3; ++i) {
    w.clock.advance(20);
    w.cluster.touch();
    EXPECT_EQ(w.loop().launched, 0) << "loop " << i;
  }
  EXPECT_EQ(w.cloud.launched_count(), 1);
  // Reported: the same node serves it, still nothing new.
  w.cluster.state.nodes.back().allocatable.gpus = 1;
  w.cluster.touch();
  w.clock.advance(20);
  EXPECT_EQ(w.loop().launched, 0);
  EXPECT_EQ(w.cloud.launched_count(), 1);
}

TEST(GpusUnreported, ANodeWhoseGpusNeverAppearIsNoLongerCountedPastTheRegisterTimeout) {
  GpuWorld w;
  w.cluster.add_pod(make_pod("train", 1000, 2 * kGi, 1));
  EXPECT_EQ(w.loop().launched, 1);
  w.clock.advance(60);
  w.cluster.register_node(w.cloud.instances.at(0), w.catalog).allocatable.gpus = 0;
  w.cluster.touch();
  EXPECT_EQ(w.loop().launched, 0);
  w.clock.set(kStart + tiny_policy().register_timeout_s + 1);
  w.cluster.touch();
  EXPECT_EQ(w.loop().launched, 1) << "its GPUs never came: the pod gets a node that has them";
}

TEST(GpusUnreported, ACpuPodIsNotHeldByTheGpuRule) {
  GpuWorld w;
  w.cluster.add_pod(make_pod("train", 1000, 2 * kGi, 1));
  EXPECT_EQ(w.loop().launched, 1);
  w.clock.advance(60);
  w.cluster.register_node(w.cloud.instances.at(0), w.catalog).allocatable.gpus = 0;
  w.cluster.add_pod(make_pod("prep", 1000, 2 * kGi));
  w.clock.advance(20);
  EXPECT_EQ(w.loop().launched, 0) << "both fit the node: the GPU one once its GPU shows";
}

}  // namespace
}  // namespace fitscale::testing
