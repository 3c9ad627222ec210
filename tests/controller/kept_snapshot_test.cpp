// The simulator plans on a snapshot kept across loops (KeptSnapshot) instead of one rebuilt from a
// copy (build_snapshot). If the two ever differ, the simulator decides differently from the live
// controller: here a cluster goes through a few thousand random changes and, after each, both
// must give the same nodes and pods, and metering must be told of every node whose pods changed.
#include "controller/kept_snapshot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "../planner/fixtures.h"
#include "controller/snapshot_builder.h"

namespace fitscale::testing {
namespace {

// A cluster that lends its state, with a revision per object as ClusterLoan asks.
struct LendingCluster {
  std::uint64_t counter = 0;
  std::map<std::string, std::pair<Node, std::uint64_t>> nodes;
  std::vector<Pod> pods;
  std::vector<std::uint64_t> revisions;

  void lend(ClusterLoan& loan) const {
    loan.nodes.clear();
    loan.node_revisions.clear();
    for (const auto& [name, n] : nodes) {
      loan.nodes.push_back(&n.first);
      loan.node_revisions.push_back(n.second);
    }
    loan.pods = &pods;
    loan.pod_revisions = &revisions;
  }
  ClusterState copy() const {
    ClusterState s;
    s.synced = true;
    for (const auto& [name, n] : nodes) s.nodes.push_back(n.first);
    s.pods = pods;
    return s;
  }
};

std::string describe(const Node& n) {
  std::string s = n.name + " state=" + std::to_string(static_cast<int>(n.state)) +
                  " managed=" + std::to_string(n.managed) + " instance=" + n.instance_id +
                  " type=" + n.instance_type + " unschedulable=" + std::to_string(n.unschedulable) +
                  " notice=" + std::to_string(n.interruption_notice) +
                  " launched=" + std::to_string(n.launched_at) +
                  " empty_since=" + (n.empty_since ? std::to_string(*n.empty_since) : "-") +
                  " labels=" + std::to_string(n.labels.size()) +
                  " taints=" + std::to_string(n.taints.size()) +
                  " cpu=" + std::to_string(n.allocatable.cpu_milli) +
                  " owner=" + n.owner_namespace + "/" + n.owner_job;
  return s;
}

std::string describe(const Pod& p) {
  return p.key() + " on=" + p.node_name + " phase=" + std::to_string(static_cast<int>(p.phase)) +
         " owner=" + p.owner.kind;
}

// What metering keys a node's cost split on: its metered pods, in snapshot order.
std::map<std::string, std::string> signatures(const Snapshot& s) {
  std::map<std::string, std::string> out;
  for (const auto& p : s.pods) {
    if (p.metered()) out[p.node_name] += p.key() + "\n";
  }
  return out;
}

TEST(KeptSnapshot, SameAsRebuiltAfterEveryRandomChange) {
  const Catalog catalog = make_catalog({{"m.large", 4000, 16 * kGi, 0, 0.1, 0.2}});
  const OfferingIndex offerings(catalog);
  std::mt19937 rng(7);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };

  LendingCluster cluster;
  std::vector<Instance> instances;
  std::set<std::string> draining;
  EmptySince empty_since;
  KeptSnapshot kept;
  ClusterLoan loan;
  std::map<std::string, std::string> last_signatures;
  int next_instance = 0, next_pod = 0, checked_touched = 0;
  Time now = 1000;

  for (int step = 0; step < 3000; ++step) {
    now += 10;
    bool relisted = false;
    const int op = static_cast<int>(pick(11));
    if (op == 0 || instances.empty()) {  // launch an instance
      Instance inst;
      inst.id = "i-" + std::to_string(next_instance++);
      inst.instance_type = "m.large";
      inst.zone = "us-east-1a";
      inst.provider_id = "aws:///us-east-1a/" + inst.id;
      inst.launched_at = now;
      inst.owner_namespace = "team-a";
      inst.job = "job" + inst.id;
      instances.push_back(inst);
      relisted = true;
    } else if (op == 1) {  // register an instance's node (or a node with no instance)
      const Instance& inst = instances[pick(instances.size())];
      Node n =
          make_node(pick(8) == 0 ? "unmanaged-" + std::to_string(step) : inst.id, 4000, 16 * kGi);
      n.provider_id = inst.provider_id;
      cluster.nodes[n.name] = {n, ++cluster.counter};
    } else if (op == 2 && !cluster.nodes.empty()) {  // remove a node, unbinding its pods
      auto it =
          std::next(cluster.nodes.begin(), static_cast<std::ptrdiff_t>(pick(cluster.nodes.size())));
      for (std::size_t i = 0; i < cluster.pods.size(); ++i) {
        if (cluster.pods[i].node_name == it->first) {
          cluster.pods[i].node_name.clear();
          cluster.revisions[i] = ++cluster.counter;
        }
      }
      cluster.nodes.erase(it);
    } else if (op == 3 && !cluster.nodes.empty()) {  // cordon
      auto it =
          std::next(cluster.nodes.begin(), static_cast<std::ptrdiff_t>(pick(cluster.nodes.size())));
      it->second.first.unschedulable = true;
      it->second.second = ++cluster.counter;
    } else if (op == 4 || op == 5) {  // a new pod; some evictable, some daemons
      Pod p = make_pod("p" + std::to_string(next_pod++), 100, kGi);
      if (pick(4) == 0) p.owner = {"ReplicaSet", "rs", "rs-uid"};
      if (pick(6) == 0) p.owner = {"DaemonSet", "ds", "ds-uid"};
      cluster.pods.push_back(p);
      cluster.revisions.push_back(++cluster.counter);
    } else if (op == 6 && !cluster.pods.empty()) {  // a pod ends: the last one fills its place
      const std::size_t at = pick(cluster.pods.size());
      cluster.pods[at] = cluster.pods.back();
      cluster.revisions[at] = cluster.revisions.back();
      cluster.pods.pop_back();
      cluster.revisions.pop_back();
    } else if ((op == 7 || op == 8) && !cluster.pods.empty() &&
               !cluster.nodes.empty()) {  // bind / unbind
      const std::size_t at = pick(cluster.pods.size());
      Pod& p = cluster.pods[at];
      if (p.node_name.empty()) {
        p.node_name = std::next(cluster.nodes.begin(),
                                static_cast<std::ptrdiff_t>(pick(cluster.nodes.size())))
                          ->first;
        p.phase = PodPhase::Running;
      } else {
        p.node_name.clear();
        p.phase = PodPhase::Pending;
      }
      cluster.revisions[at] = ++cluster.counter;
    } else if (op == 9) {  // the cloud changes: an interruption notice, or an instance goes
      const std::size_t at = pick(instances.size());
      if (pick(2) == 0) {
        instances[at].interruption_notice = true;
      } else {
        instances.erase(instances.begin() + static_cast<std::ptrdiff_t>(at));
      }
      relisted = true;
    } else if (op == 10 && !cluster.nodes.empty()) {  // drain, or forget a node's empty time
      const std::string name =
          std::next(cluster.nodes.begin(), static_cast<std::ptrdiff_t>(pick(cluster.nodes.size())))
              ->first;
      if (pick(2) == 0) {
        draining.insert(name);
      } else {
        empty_since.erase(name);
        kept.forget_empty(name);
      }
    }
    std::erase_if(draining, [&](const std::string& n) { return cluster.nodes.count(n) == 0; });

    cluster.lend(loan);
    kept.update(loan, instances, relisted, offerings, draining, now);
    const Snapshot rebuilt =
        build_snapshot(cluster.copy(), instances, offerings, draining, now, empty_since);
    const Snapshot& got = kept.snapshot();
    ASSERT_EQ(got.nodes.size(), rebuilt.nodes.size()) << "step " << step;
    for (std::size_t i = 0; i < got.nodes.size(); ++i) {
      ASSERT_EQ(describe(got.nodes[i]), describe(rebuilt.nodes[i]))
          << "step " << step << " node " << i;
      ASSERT_EQ(got.nodes[i].labels, rebuilt.nodes[i].labels) << "step " << step;
      ASSERT_EQ(got.nodes[i].provider_id, rebuilt.nodes[i].provider_id) << "step " << step;
    }
    ASSERT_EQ(got.pods.size(), rebuilt.pods.size()) << "step " << step;
    const auto unbound = std::count_if(rebuilt.pods.begin(), rebuilt.pods.end(),
                                       [](const Pod& p) { return p.node_name.empty(); });
    ASSERT_EQ(kept.unbound(), static_cast<std::size_t>(unbound)) << "step " << step;
    for (std::size_t i = 0; i < got.pods.size(); ++i) {
      ASSERT_EQ(describe(got.pods[i]), describe(rebuilt.pods[i]))
          << "step " << step << " pod " << i;
    }

    // Metering reads a changed node's pods from pods_on(): they must be its pods, in order.
    std::map<std::string, std::vector<const Pod*>> bound;
    for (const auto& p : got.pods) {
      if (!p.node_name.empty()) bound[p.node_name].push_back(&p);
    }
    for (const auto& n : got.nodes) {
      ASSERT_EQ(kept.pods_on(n.name), bound[n.name]) << "step " << step << " node " << n.name;
    }

    auto sigs = signatures(got);
    if (!kept.all_touched()) {
      for (const auto& n : got.nodes) {
        if (n.state == NodeState::InFlight || kept.touched().count(n.name) != 0) continue;
        ++checked_touched;
        ASSERT_EQ(sigs[n.name], last_signatures[n.name])
            << "step " << step << ": untouched node " << n.name << " has other pods";
      }
    }
    last_signatures = std::move(sigs);
  }
  EXPECT_GT(checked_touched, 1000);  // the touched set was narrower than every node, often
}

}  // namespace
}  // namespace fitscale::testing
