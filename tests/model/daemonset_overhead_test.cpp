#include "model/daemonset_overhead.h"

#include <gtest/gtest.h>

#include "model/offering.h"

namespace fitscale {
namespace {

Pod daemon_pod(std::string ds, std::int64_t cpu_m, std::int64_t mem_mib, std::string node) {
  Pod p;
  p.ns = "kube-system";
  p.name = ds + "-" + node;
  p.owner = {"DaemonSet", ds, "uid-" + ds};
  p.requests.cpu_milli = cpu_m;
  p.requests.memory_bytes = mem_mib << 20;
  p.requests.pods = 1;
  p.node_name = node;
  p.phase = PodPhase::Running;
  return p;
}

TEST(DaemonsetOverhead, OnePodPerDaemonSetAtItsLargestRequest) {
  std::vector<Pod> pods = {daemon_pod("aws-node", 25, 0, "n1"), daemon_pod("aws-node", 25, 0, "n2"),
                           daemon_pod("kube-proxy", 100, 50, "n1"),
                           daemon_pod("kube-proxy", 100, 60, "n2")};  // a newer template asks more
  Pod job;
  job.ns = "team-a";
  job.name = "train";
  job.owner = {"Job", "train", "uid-j"};
  job.requests.cpu_milli = 4000;
  pods.push_back(job);
  Pod gone = daemon_pod("old-agent", 500, 500, "n1");
  gone.terminating = true;
  pods.push_back(gone);

  const Resources o = daemonset_overhead(pods);
  EXPECT_EQ(o.cpu_milli, 125);
  EXPECT_EQ(o.memory_bytes, 60LL << 20);
  EXPECT_EQ(o.pods, 2);

  // m5.large: 1930m, 6627 MiB, 110 pods by the EKS rule; less the two daemon pods.
  InstanceType m5{"m5.large", "amd64", 2, 8192, 0, "", 0, 0.096, 0.03648, 1, "5-10%"};
  AllocatableRule rule;
  rule.daemonset_overhead = o;
  const Resources a = allocatable(m5, rule);
  EXPECT_EQ(a.cpu_milli, 1805);
  EXPECT_EQ(a.memory_bytes, (6627LL - 60) << 20);
  EXPECT_EQ(a.pods, 108);
}

TEST(DaemonsetOverhead, NoDaemonSetsNoOverhead) { EXPECT_TRUE(daemonset_overhead({}).is_zero()); }

}  // namespace
}  // namespace fitscale
