#pragma once
// The pods of Karpenter's scheduling benchmark (kubernetes-sigs/karpenter,
// pkg/controllers/provisioning/scheduling/scheduling_benchmark_test.go, makeDiversePods), so the
// benchmark and the test that checks its plans build the same mix. Six kinds in equal shares:
// generic pods; topology spread on the zone and on the hostname (maxSkew 1, DoNotSchedule);
// required pod affinity on the hostname and on the zone; required pod anti-affinity on the
// hostname. Spread and generic pods carry `my-label` (one of a-g) and spread selectors select a
// random `my-label`; affinity pods carry and select a random `my-affininity` (Karpenter's
// spelling); anti-affinity pods are all app=nginx, repelling each other. CPU from {100, 250,
// 500, 1000, 1500}m, memory from {100, 256, 512, 1024, 2048, 4096}Mi, as Karpenter draws them.
// The remainder of count / 6 are generic pods.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "model/pod.h"

namespace fitscale::bench {

inline std::vector<Pod> karpenter_mix(int count, std::uint64_t seed = 42) {
  std::mt19937_64 rng(seed);
  auto value = [&rng] { return std::string(1, static_cast<char>('a' + rng() % 7)); };
  const std::int64_t cpus[] = {100, 250, 500, 1000, 1500};
  const std::int64_t mems[] = {100, 256, 512, 1024, 2048, 4096};
  std::vector<Pod> pods;
  pods.reserve(static_cast<std::size_t>(count));
  auto pod = [&](const std::string& kind) -> Pod& {
    Pod p;
    p.ns = "default";
    p.name = kind + "-" + std::to_string(pods.size());
    p.uid = p.name;
    p.requests.cpu_milli = cpus[rng() % 5];
    p.requests.memory_bytes = mems[rng() % 6] * 1024 * 1024;
    p.requests.pods = 1;
    p.owner = {"ReplicaSet", "rs", "rs"};
    p.created = static_cast<Time>(pods.size());
    pods.push_back(std::move(p));
    return pods.back();
  };
  auto spread = [&](const char* key) {
    Pod& p = pod(std::string("spread-") + (key[0] == 't' ? "zone" : "host"));
    p.labels = {{"my-label", value()}};
    TopologySpreadConstraint c;
    c.max_skew = 1;
    c.topology_key = key;
    c.has_selector = true;
    c.selector.match_labels = {{"my-label", value()}};
    p.constraints.spread.push_back(std::move(c));
  };
  auto affinity = [&](const char* key, bool anti) {
    Pod& p = pod(std::string(anti ? "anti-" : "affinity-") + (key[0] == 't' ? "zone" : "host"));
    PodAffinityTerm t;
    t.topology_key = key;
    if (anti) {
      p.labels = {{"app", "nginx"}};
      t.selector.match_labels = {{"app", "nginx"}};
      p.anti_affinity_hostname.push_back(t.selector);  // as the decoder keeps hostname terms
      return;
    }
    p.labels = {{"my-affininity", value()}};
    t.selector.match_labels = {{"my-affininity", value()}};
    p.constraints.affinity.push_back(std::move(t));
  };
  const char* zone = "topology.kubernetes.io/zone";
  const char* host = "kubernetes.io/hostname";
  const int each = count / 6;
  for (int i = 0; i < each; ++i) pod("generic").labels = {{"my-label", value()}};
  for (int i = 0; i < each; ++i) spread(zone);
  for (int i = 0; i < each; ++i) spread(host);
  for (int i = 0; i < each; ++i) affinity(host, false);
  for (int i = 0; i < each; ++i) affinity(zone, false);
  for (int i = 0; i < each; ++i) affinity(host, true);
  while (static_cast<int>(pods.size()) < count) pod("generic").labels = {{"my-label", value()}};
  return pods;
}

}  // namespace fitscale::bench
