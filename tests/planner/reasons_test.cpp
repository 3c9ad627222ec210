// Every pending pod the plan does not serve gets a reason a person can act on, with numbers.
#include <gtest/gtest.h>

#include "fixtures.h"

namespace fitscale {
namespace {

using testing::kGi;
using testing::make_catalog;
using testing::make_pod;
using testing::reason_for;

Catalog gpu_catalog() {
  return make_catalog({{"m5.xlarge", 4000, 16 * kGi, 0, 0.05, 0.192},
                       {"p5.48xlarge", 192000, 1952 * kGi, 8, 40, 98.32, "H100"},
                       {"p3.16xlarge", 64000, 488 * kGi, 8, 7.34, 24.48, "V100"}});
}

TEST(Reasons, UnknownExtendedResource) {
  Snapshot s;
  Pod p = make_pod("fpga", 1000, kGi);
  p.requests.extended.push_back({"example.com/fpga", 1});
  s.pods.push_back(p);
  const Plan out = plan(s, gpu_catalog(), testing::no_budgets(), 0);
  EXPECT_TRUE(out.launch.empty());
  const auto* u = reason_for(out, "team-a/fpga");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->kind, UnschedulableKind::NoOffering);
  EXPECT_EQ(u->reason, "requests example.com/fpga 1: no offering has it");
}

TEST(Reasons, NodeSelectorNoOfferingCarries) {
  Snapshot s;
  Pod p = make_pod("ssd", 1000, kGi);
  p.node_selector["disktype"] = "ssd";
  s.pods.push_back(p);
  const Plan out = plan(s, gpu_catalog(), testing::no_budgets(), 0);
  const auto* u = reason_for(out, "team-a/ssd");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->reason, "node selector disktype=ssd matches no offering");
}

TEST(Reasons, TooBigForTheLargestOfferingOfItsGpuModel) {
  Snapshot s;
  Pod p = make_pod("llm", 96000, 2048 * kGi, 8);
  p.node_selector["karpenter.k8s.aws/instance-gpu-name"] = "h100";  // alias, lower case
  s.pods.push_back(p);
  const Plan out = plan(s, gpu_catalog(), testing::no_budgets(), 0);
  const auto* u = reason_for(out, "team-a/llm");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(
      u->reason,
      "needs 8 GPUs of model H100, cpu 96 and 2,048 GiB memory; the largest matching offering "
      "p5.48xlarge has 8 GPUs but 1,952 of 2,048 GiB memory allocatable");
}

TEST(Reasons, AffinityNoOfferingMatches) {
  Snapshot s;
  Pod p = make_pod("arm", 1000, kGi);
  p.required_node_affinity.push_back({{{"kubernetes.io/arch", SelectorOp::In, {"arm64"}}}});
  s.pods.push_back(p);
  const Plan out = plan(s, gpu_catalog(), testing::no_budgets(), 0);
  const auto* u = reason_for(out, "team-a/arm");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->reason, "required node affinity matches no offering");
}

TEST(Reasons, EveryPendingPodIsEitherServedOrExplained) {
  Snapshot s;
  s.pods.push_back(make_pod("ok", 1000, kGi));
  Pod big = make_pod("big", 1000000, kGi);
  s.pods.push_back(big);
  Pod fpga = make_pod("fpga", 1000, kGi);
  fpga.requests.extended.push_back({"example.com/fpga", 2});
  s.pods.push_back(fpga);
  const Plan out = plan(s, gpu_catalog(), testing::no_budgets(), 0);
  std::size_t launched_pods = 0;
  for (const auto& l : out.launch) launched_pods += l.pods.size();
  EXPECT_EQ(launched_pods + out.unschedulable.size() + out.placements.size(), 3u);
  const auto* u = reason_for(out, "team-a/big");
  ASSERT_NE(u, nullptr);
  EXPECT_NE(u->reason.find("1,000 CPUs"), std::string::npos) << u->reason;
}

}  // namespace
}  // namespace fitscale
