// Planner benchmarks (issue 2): wall time per plan() and peak RSS, on three shapes.
//   CaEstimator: cluster-autoscaler's estimator benchmark shape (CA publishes 41 ms).
//   Karpenter:   Karpenter's scheduling benchmark shape (Karpenter publishes 35.7 s), plus the
//                plan's cost against the lower bound of lower_bound_usd_per_hour().
//   FullCatalog: 100,000 pending GPU and CPU pods, the shipped catalog, 3 zones, 5,000 nodes.
// Results and the command line are in docs/PERFORMANCE.md ("## Planner").
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

#include "karpenter_mix.h"
#include "model/catalog.h"
#include "planner/plan.h"

namespace fitscale {
namespace {

constexpr std::int64_t kMi = 1024LL * 1024;
constexpr std::int64_t kGi = 1024 * kMi;

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

Pod pending_pod(const std::string& ns, std::int64_t i, std::int64_t cpu, std::int64_t mem,
                std::int64_t gpus = 0) {
  Pod p;
  p.ns = ns;
  p.name = "p-" + std::to_string(i);
  p.uid = p.name;
  p.requests.cpu_milli = cpu;
  p.requests.memory_bytes = mem;
  p.requests.gpus = gpus;
  p.requests.pods = 1;
  p.owner = {"ReplicaSet", "rs", "rs"};  // every pod is its own budget job: the worst case
  p.created = i;
  return p;
}

Offering offering(const std::string& type, const std::string& zone, CapacityType ct,
                  const Resources& alloc, double usd) {
  Offering o;
  o.instance_type = type;
  o.zone = zone;
  o.capacity_type = ct;
  o.allocatable = alloc;
  o.usd_per_hour = usd;
  o.micros_per_hour = dollars_to_micros(usd);
  o.labels = {{std::string(label::kInstanceType), type},
              {std::string(label::kZone), zone},
              {std::string(label::kCapacityType), to_string(ct)}};
  return o;
}

Catalog shipped_catalog() {
  return build_catalog(parse_catalog_csv(default_catalog_csv(), "embedded catalog"),
                       CatalogOptions{});
}

Policy no_budgets() {
  Policy p;
  p.enforce_budgets = false;
  return p;
}

void BM_CaEstimator(benchmark::State& state) {
  Catalog cat;
  Resources alloc;
  alloc.cpu_milli = 1000;
  alloc.memory_bytes = 5000 * kMi;
  alloc.pods = 100;
  cat.offerings.push_back(offering("ca-shape", "us-east-1a", CapacityType::Spot, alloc, 0.10));
  Snapshot s;
  for (int i = 0; i < 50000; ++i) s.pods.push_back(pending_pod("default", i, 50, 100 * kMi));
  for (int i = 0; i < 1000; ++i) s.pods.push_back(pending_pod("default", 50000 + i, 95, 190 * kMi));
  Policy pol = no_budgets();
  pol.zones = {"us-east-1a"};
  if (state.range(0) == 1) {
    // Admission on, with caps that never bind: prices every pod as its own job.
    pol.enforce_budgets = true;
    pol.budgets = Budgets{};
  }
  int nodes = 0;
  for (auto _ : state) {
    Plan p = plan(s, cat, pol, 0);
    nodes = 0;
    for (const auto& l : p.launch) nodes += l.count;
    benchmark::DoNotOptimize(p);
  }
  state.counters["nodes"] = nodes;
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}
BENCHMARK(BM_CaEstimator)->Unit(benchmark::kMillisecond)->Arg(0)->Arg(1)->ArgName("budgets");

// 400 CPU instance types of the shipped catalog (amd64, no GPU, by name), all zones and
// capacity types; 20,000 pods drawn from Karpenter's benchmark distribution with a fixed seed.
void BM_Karpenter(benchmark::State& state) {
  const Catalog full = shipped_catalog();
  std::vector<std::string> names;
  for (const auto& t : full.types) {
    if (t.gpu == 0 && t.arch == "amd64") names.push_back(t.name);
  }
  std::sort(names.begin(), names.end());
  names.resize(std::min<std::size_t>(400, names.size()));
  std::vector<InstanceType> types;
  for (const auto& t : full.types) {
    if (std::binary_search(names.begin(), names.end(), t.name)) types.push_back(t);
  }
  const Catalog cat = build_catalog(types, CatalogOptions{});
  const std::int64_t cpus[] = {100, 250, 500, 1000, 1500};
  const std::int64_t mems[] = {100 * kMi, 256 * kMi, 512 * kMi, 1 * kGi, 2 * kGi, 4 * kGi};
  std::mt19937_64 rng(42);
  Snapshot s;
  for (int i = 0; i < 20000; ++i) {
    s.pods.push_back(pending_pod("default", i, cpus[rng() % 5], mems[rng() % 6]));
  }
  const Policy pol = no_budgets();
  Plan p;
  for (auto _ : state) {
    p = plan(s, cat, pol, 0);
    benchmark::DoNotOptimize(p);
  }
  // Lower bound, once per distinct request (identical pods have identical bounds).
  std::map<std::pair<std::int64_t, std::int64_t>, double> bound;
  double lb = 0;
  for (const Pod& pod : s.pods) {
    auto key = std::make_pair(pod.requests.cpu_milli, pod.requests.memory_bytes);
    auto it = bound.find(key);
    if (it == bound.end()) it = bound.emplace(key, lower_bound_usd_per_hour(pod, cat, pol)).first;
    lb += it->second;
  }
  state.counters["types"] = static_cast<double>(cat.types.size());
  state.counters["usd_per_hour"] = p.usd_per_hour;
  state.counters["lower_bound"] = lb;
  state.counters["cost_ratio"] = p.usd_per_hour / lb;
  state.counters["unschedulable"] = static_cast<double>(p.unschedulable.size());
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}
BENCHMARK(BM_Karpenter)->Unit(benchmark::kMillisecond);

// The same 400 types, and Karpenter's real constraint mix (bench/karpenter_mix.h): a sixth each
// of generic pods, zone spread, hostname spread, hostname affinity, zone affinity and hostname
// anti-affinity, 20,000 pods.
void BM_KarpenterConstrained(benchmark::State& state) {
  const Catalog full = shipped_catalog();
  std::vector<std::string> names;
  for (const auto& t : full.types) {
    if (t.gpu == 0 && t.arch == "amd64") names.push_back(t.name);
  }
  std::sort(names.begin(), names.end());
  names.resize(std::min<std::size_t>(400, names.size()));
  std::vector<InstanceType> types;
  for (const auto& t : full.types) {
    if (std::binary_search(names.begin(), names.end(), t.name)) types.push_back(t);
  }
  const Catalog cat = build_catalog(types, CatalogOptions{});
  Snapshot s;
  s.pods = bench::karpenter_mix(20000);
  const Policy pol = no_budgets();
  Plan p;
  for (auto _ : state) {
    p = plan(s, cat, pol, 0);
    benchmark::DoNotOptimize(p);
  }
  std::int64_t nodes = 0;
  for (const auto& l : p.launch) nodes += l.count;
  state.counters["types"] = static_cast<double>(cat.types.size());
  state.counters["usd_per_hour"] = p.usd_per_hour;
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["unschedulable"] = static_cast<double>(p.unschedulable.size());
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}
BENCHMARK(BM_KarpenterConstrained)->Unit(benchmark::kMillisecond);

// 100,000 pending pods (80% CPU pods as above, 20% GPU pods of 1-8 GPUs, 6 CPUs and 40Gi per
// GPU; the 8-GPU ones in gangs of 4) against the whole shipped catalog in 3 zones, with 5,000
// Ready nodes already running 3 pods each.
void BM_FullCatalog(benchmark::State& state) {
  const Catalog cat = shipped_catalog();
  std::mt19937_64 rng(7);
  Snapshot s;
  const char* zones[] = {"us-east-1a", "us-east-1b", "us-east-1c"};
  for (int i = 0; i < 5000; ++i) {
    Node n;
    n.name = "node-" + std::to_string(i);
    n.zone = zones[i % 3];
    n.labels = {{std::string(label::kZone), n.zone},
                {std::string(label::kHostname), n.name},
                {std::string(label::kInstanceType), "m5.2xlarge"}};
    n.allocatable.cpu_milli = 7910;
    n.allocatable.memory_bytes = 30 * kGi;
    n.allocatable.pods = 110;
    s.nodes.push_back(n);
    for (int k = 0; k < 3; ++k) {
      Pod p = pending_pod("running", i * 3 + k, 2500, 8 * kGi);
      p.node_name = n.name;
      p.phase = PodPhase::Running;
      s.pods.push_back(p);
    }
  }
  const std::int64_t cpus[] = {100, 250, 500, 1000, 1500};
  const std::int64_t mems[] = {100 * kMi, 256 * kMi, 512 * kMi, 1 * kGi, 2 * kGi, 4 * kGi};
  const std::int64_t gpu_choices[] = {1, 2, 4, 8};
  const char* teams[] = {"team-a", "team-b", "team-c", "team-d"};
  for (int i = 0; i < 100000; ++i) {
    const char* ns = teams[rng() % 4];
    if (i % 5 != 0) {
      s.pods.push_back(pending_pod(ns, 100000 + i, cpus[rng() % 5], mems[rng() % 6]));
      continue;
    }
    const std::int64_t g = gpu_choices[rng() % 4];
    Pod p = pending_pod(ns, 100000 + i, 6000 * g, 40 * kGi * g, g);
    p.owner = {"Job", "job-" + std::to_string(i / 20), "j"};
    if (g == 8) {
      p.gang = Gang{"gang-" + std::to_string(i / 20), 4};
    }
    s.pods.push_back(p);
  }
  // Gangs must be complete: keep exactly 4 members per gang name (drop the extras' gang).
  std::map<std::pair<std::string, std::string>, int> members;
  for (Pod& p : s.pods) {
    if (!p.gang) continue;
    if (++members[{p.ns, p.gang->name}] > 4) p.gang.reset();
  }
  for (Pod& p : s.pods) {
    if (p.gang && members[{p.ns, p.gang->name}] < 4) p.gang.reset();
  }
  const Policy pol = no_budgets();
  Plan p;
  for (auto _ : state) {
    p = plan(s, cat, pol, 0);
    benchmark::DoNotOptimize(p);
  }
  int nodes = 0;
  for (const auto& l : p.launch) nodes += l.count;
  state.counters["launched"] = nodes;
  state.counters["placed"] = static_cast<double>(p.placements.size());
  state.counters["unschedulable"] = static_cast<double>(p.unschedulable.size());
  state.counters["usd_per_hour"] = p.usd_per_hour;
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}
BENCHMARK(BM_FullCatalog)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fitscale

BENCHMARK_MAIN();
