// Simulator benchmark (issue 18: `fitscale simulate` became ~9x slower when its planner grew
// topology, reclaim and the one feasibility check): CPU time of `simulate()` on the first N jobs
// of data/traces/philly-week.csv, with the options and catalog `fitscale simulate` uses (default
// config, embedded catalog, an in-memory ledger). Every loop of the simulated controller observes,
// meters, decides reclaim taints and plans against hundreds of nodes with few pods pending, so
// this measures the per-loop cost the planner's unit benchmarks (planner_bench) do not.
// Results and the command line are in docs/PERFORMANCE.md ("Simulator CPU time").
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cost/memory_ledger.h"
#include "model/catalog.h"
#include "model/config.h"
#include "model/file_text.h"
#include "planner/policy_from_config.h"
#include "sim/simulator.h"
#include "sim/trace.h"

namespace fitscale {
namespace {

const std::vector<TraceJob>& philly_week() {
  static const std::vector<TraceJob> jobs = [] {
    const std::string path = std::string(FITSCALE_SOURCE_DIR) + "/data/traces/philly-week.csv";
    return parse_trace(read_file_text(path, "trace"), path);
  }();
  return jobs;
}

void BM_SimulatePhillyWeek(benchmark::State& state) {
  const std::vector<TraceJob>& all = philly_week();
  // The trace is in submit order; its first N jobs are its first hours.
  const std::vector<TraceJob> jobs(
      all.begin(), all.begin() + std::min<std::ptrdiff_t>(state.range(0),
                                                          static_cast<std::ptrdiff_t>(all.size())));
  const Config config;
  const Catalog catalog =
      build_catalog(parse_catalog_csv(default_catalog_csv(), "embedded catalog"),
                    catalog_options_from_config(config));
  const SimOptions options = sim_options_from_config(config);
  double cost = 0;
  for (auto _ : state) {
    MemoryLedger ledger;
    const SimReport r = simulate(jobs, catalog, options, &ledger);
    cost = r.cost_usd.total;
  }
  state.counters["cost_usd"] = cost;
}
BENCHMARK(BM_SimulatePhillyWeek)
    ->Arg(1500)
    ->Arg(3000)
    ->Unit(benchmark::kSecond)
    ->MeasureProcessCPUTime()
    ->Iterations(1);

}  // namespace
}  // namespace fitscale

BENCHMARK_MAIN();
