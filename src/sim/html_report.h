#pragma once
// `fitscale simulate --report-html FILE`: one self-contained HTML page (no network access needed
// to open it) with the simulation's headline numbers as text and charts drawn by Chart.js, which
// the build fetched from npm (web/package.json) and embedded in the binary.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/report.h"

namespace fitscale {

namespace embedded {
// web/node_modules/chart.js/dist/chart.umd.js (src/CMakeLists.txt, fitscale_embed).
extern const std::string_view chart_js;
}  // namespace embedded

// Charts: nodes and GPUs provisioned vs used, cost rate, pending pods, wait-time distribution,
// cost by namespace, spend against budget. Every number a chart shows is also in a table, so the
// page reads without JavaScript. When the scripts ran, each chart's <canvas> carries
// data-drawn="true" (what the Chromium test checks).
std::string report_html(const SimReport& report);

// `fitscale simulate --compare`: one page with every run in a column of the same tables (cost,
// the bound and what is over it, evictions, waits, nodes, each team, the costliest jobs) and a
// line of its own on the same charts. One run gives the single-run page above.
struct NamedReport {
  std::string name;  // the column's heading: the config's name or the policy's
  const SimReport* report = nullptr;
};
std::string report_html(const std::vector<NamedReport>& runs);

// Wait-time histogram buckets used by the report: upper bounds in seconds (the last is open).
struct WaitBucket {
  std::string label;
  double upper_s;
  std::int64_t count;
};
std::vector<WaitBucket> wait_histogram(const std::vector<double>& waits_s);

}  // namespace fitscale
