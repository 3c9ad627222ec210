// The reclaim taint in the simulator (docs/planner.md step 12): a big node whose own job ended
// is not kept alive for hours by a cheap pod that lands in its room.
#include <gtest/gtest.h>

#include "sim/simulator.h"

namespace fitscale {
namespace {

constexpr const char* kCatalog =
    "instance_type,arch,vcpu,memory_mib,gpu,gpu_model,gpu_memory_mib,on_demand_usd_per_hour,"
    "spot_usd_per_hour,spot_interruption_bucket,spot_interruption_label\n"
    "b8.48xlarge,amd64,192,786432,8,A10G,24576,8.000000,,,\n"
    "s1.2xlarge,amd64,8,32768,1,A10G,24576,1.000000,,,\n";

// An 8-GPU job of two minutes, then, once it ended, a 1-GPU job of ten hours.
constexpr const char* kTrace =
    "submit_s,job,namespace,replicas,cpu,memory,gpu,duration_s\n"
    "0,train8,team-a,1,32,128Gi,8,120\n"
    "310,one,team-a,1,4,16Gi,1,36000\n";

SimReport run(double reclaim_factor) {
  CatalogOptions co;
  co.zones = {"us-east-1a"};
  const Catalog catalog = build_catalog(parse_catalog_csv(kCatalog, "catalog.csv"), co);
  SimOptions o;
  o.policy.zones = {"us-east-1a"};
  o.policy.reclaim_factor = reclaim_factor;
  o.interruptions = false;
  return simulate(parse_trace(kTrace, "trace.csv"), catalog, o);
}

TEST(ReclaimSim, ACheapPodIsSteeredOffTheRoomOfABigNodeWhoseJobEnded) {
  // train8: b8 launched at 0, Ready at 180, runs to 300. At 300 the node is empty and its job
  // has ended: tainted fitscale.io/reclaim. "one" arrives at 310 and gets a node of its own
  // ($1/h against the $8/h room); the big node goes as empty (launched 300 s ago, empty 60 s).
  const SimReport r = run(2.0);
  EXPECT_EQ(r.jobs.completed, 2);
  EXPECT_EQ(r.nodes.by_instance_type.at("b8.48xlarge"), 1);
  EXPECT_EQ(r.nodes.by_instance_type.at("s1.2xlarge"), 1);
  // About 10 h of a $1/h node plus a few minutes of the big one.
  EXPECT_LT(r.cost_usd.total, 12.0);

  // Without it the pod rides in the big node's room, and keeps all of it for ten hours.
  const SimReport off = run(0);
  EXPECT_EQ(off.nodes.launched, 1);
  EXPECT_GT(off.cost_usd.total, 80.0);
}

}  // namespace
}  // namespace fitscale
