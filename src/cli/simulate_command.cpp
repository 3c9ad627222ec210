// `fitscale simulate --trace FILE [--catalog FILE] [--config FILE] [--compare CONFIG...] [--seed N]
// [--interval S] [--report-json FILE] [--report-html FILE] [--ledger FILE] [--quiet]`: replays a
// job trace through the real controller on a virtual clock and says what it would have cost and
// how long jobs would have waited; with --compare, once per config over the same trace and
// catalog, side by side. The wall clock is read here only to say how long a replay took.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cost/budget_alerts_from_config.h"
#include "cost/memory_ledger.h"
#include "cost/sqlite_ledger.h"
#include "model/catalog.h"
#include "model/config.h"
#include "model/error.h"
#include "model/file_text.h"
#include "model/money.h"
#include "planner/policy_from_config.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/trace.h"
#if __has_include("sim/html_report.h")
#include "sim/html_report.h"
#define FITSCALE_HAVE_HTML_REPORT 1
#endif

namespace fitscale::cli {
namespace {

struct SimulateFlags {
  std::string trace;
  std::string catalog;
  std::string config;
  std::uint64_t seed = 1;
  Seconds interval_s = 0;  // 0: the config's controller.interval (10 s by default)
  std::string report_json;
  std::string report_html;
  std::string ledger;
  std::vector<std::string> compare;  // config files, or built-in policy names
  bool quiet = false;
};

// One replay of --compare (or the only one): its column's name and its config.
struct Run {
  std::string name;
  Config config;
};

constexpr std::size_t kCostliestJobs = 10;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(path + ": cannot write the report here");
  out << text;
  if (!out.flush()) throw InputError(path + ": writing the report failed");
}

std::string base_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "3m10s" for waits; "0s" for none.
std::string short_wait(double s) { return format_duration(std::llround(s)); }

std::string days(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f days", seconds / 86400.0);
  return buf;
}

void print_summary(const SimReport& r, const std::string& trace, const std::string& name) {
  if (!name.empty()) std::printf("%s (policy %s)\n", name.c_str(), r.sim.policy.c_str());
  const double ratio = r.lower_bound_usd > 0 ? r.cost_usd.total / r.lower_bound_usd : 0;
  const double used_pct =
      r.gpu_hours.provisioned > 0 ? 100.0 * r.gpu_hours.used / r.gpu_hours.provisioned : 0;
  std::printf("fitscale simulate: %s, %s jobs over %s of virtual time from %s (%.1f s wall)\n",
              base_name(trace).c_str(), format_count(r.jobs.submitted).c_str(),
              days(r.sim.virtual_s).c_str(), r.sim.start.c_str(), r.sim.wall_s);
  std::printf("  jobs        %s completed, %s refused\n", format_count(r.jobs.completed).c_str(),
              format_count(r.jobs.refused).c_str());
  std::printf("  cost        %s  (spot %s, on-demand %s; idle %s)\n",
              format_usd(r.cost_usd.total).c_str(), format_usd(r.cost_usd.spot).c_str(),
              format_usd(r.cost_usd.on_demand).c_str(), format_usd(r.cost_usd.idle).c_str());
  std::printf("  lower bound %s  (cost is %.2fx the fluid bound)\n",
              format_usd(r.lower_bound_usd).c_str(), ratio);
  std::printf("  over bound  %s: boot %s, idle %s, interruptions %s, %spacking %s\n",
              format_usd(r.cost_usd.total - r.lower_bound_usd).c_str(),
              format_usd(r.excess_usd.boot).c_str(), format_usd(r.excess_usd.idle).c_str(),
              format_usd(r.excess_usd.lost_to_interruptions).c_str(),
              r.excess_usd.lost_to_evictions > 0
                  ? ("evictions " + format_usd(r.excess_usd.lost_to_evictions) + ", ").c_str()
                  : "",
              format_usd(r.excess_usd.packing).c_str());
  std::printf("  wait        p50 %s, p90 %s, p99 %s, max %s\n", short_wait(r.wait_s.p50).c_str(),
              short_wait(r.wait_s.p90).c_str(), short_wait(r.wait_s.p99).c_str(),
              short_wait(r.wait_s.max).c_str());
  std::printf("  nodes       %s launched, peak %s, %s interrupted, %s never registered\n",
              format_count(r.nodes.launched).c_str(), format_count(r.nodes.peak).c_str(),
              format_count(r.nodes.interrupted).c_str(),
              format_count(r.nodes.never_registered).c_str());
  std::printf("  GPU-hours   %s provisioned, %s used (%.0f%%)\n",
              format_count(std::llround(r.gpu_hours.provisioned)).c_str(),
              format_count(std::llround(r.gpu_hours.used)).c_str(), used_pct);
  if (r.evictions.nodes > 0) {
    std::printf("  evictions   %s nodes drained under %s job runs: %s and %.1f job-hours lost\n",
                format_count(r.evictions.nodes).c_str(), format_count(r.evictions.jobs).c_str(),
                format_usd(r.evictions.lost_usd).c_str(), r.evictions.lost_job_hours);
  }
  for (std::size_t i = 0; i < r.costliest_jobs.size() && i < 3; ++i) {
    std::printf("  costliest   %s %s\n", r.costliest_jobs[i].job.c_str(),
                format_usd(r.costliest_jobs[i].cost_usd).c_str());
  }
  std::printf("  controller  %s loops, %s planned, %s restarts (interruptions, evictions)\n",
              format_count(r.sim.loops).c_str(), format_count(r.sim.loops_planned).c_str(),
              format_count(r.sim.restarts).c_str());
  for (std::size_t i = 0; i < r.refusals.size() && i < 3; ++i) {
    std::printf("  refused     %s: %s\n", r.refusals[i].job.c_str(), r.refusals[i].reason.c_str());
  }
  if (r.refusals.size() > 3)
    std::printf("  refused     ... and %zu more (see the JSON report)\n", r.refusals.size() - 3);
  for (std::size_t i = 0; i < r.past_worst_case.size() && i < 3; ++i) {
    const SimOverrun& o = r.past_worst_case[i];
    std::printf("  overran     %s/%s: past its worst case of %s (%s)\n", o.ns.c_str(),
                o.job.c_str(), format_duration(o.runtime_s).c_str(), o.action.c_str());
  }
  if (r.past_worst_case.size() > 3)
    std::printf("  overran     ... and %zu more (see past_worst_case in the JSON report)\n",
                r.past_worst_case.size() - 3);
}

// A progress line on stderr for replays that take more than a second: rewritten in place on a
// terminal, one line every 10 s otherwise (so CI logs stay short). The wall clock is read only
// every 256th loop; the simulator itself never reads it.
class ProgressLine {
 public:
  ProgressLine(std::chrono::steady_clock::time_point start, std::string label)
      : start_(start), label_(std::move(label)), tty_(isatty(fileno(stderr)) != 0) {}
  ~ProgressLine() {
    if (shown_ && tty_) std::fputs("\n", stderr);
  }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(const SimProgress& p) {
    if ((++calls_ & 255) != 0) return;
    const auto now = std::chrono::steady_clock::now();
    const double wall = std::chrono::duration<double>(now - start_).count();
    if (wall < 1.0 || now < next_) return;
    next_ = now + (tty_ ? std::chrono::milliseconds(250) : std::chrono::seconds(10));
    const double pct = p.total_jobs > 0 ? 100.0 * static_cast<double>(p.finished) /
                                              static_cast<double>(p.total_jobs)
                                        : 100.0;
    std::fprintf(stderr,
                 "%ssimulate%s: day %.1f, %s of %s jobs submitted, %s done (%.0f%%), %.0f s%s",
                 tty_ ? "\r" : "", label_.c_str(), static_cast<double>(p.virtual_s) / 86400.0,
                 format_count(static_cast<std::int64_t>(p.submitted)).c_str(),
                 format_count(static_cast<std::int64_t>(p.total_jobs)).c_str(),
                 format_count(static_cast<std::int64_t>(p.finished)).c_str(), pct, wall,
                 tty_ ? "\x1b[K" : "\n");
    std::fflush(stderr);
    shown_ = true;
  }

 private:
  std::chrono::steady_clock::time_point start_;
  std::string label_;  // " [karpenter 2/3]" with --compare
  std::chrono::steady_clock::time_point next_{};
  bool tty_;
  bool shown_ = false;
  std::uint64_t calls_ = 0;
};

const char* const kBuiltinPolicies[] = {"fitscale", "cluster-autoscaler", "karpenter"};

std::string stem(const std::string& path) {
  std::string b = base_name(path);
  const auto dot = b.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? b : b.substr(0, dot);
}

// The runs: the --config (or the defaults) alone, or each --compare entry. An entry that names
// a file is a config of its own; otherwise it must be a built-in policy, which runs the --config
// with `policy:` set to it, so every column shares its pools, zones and scale-down settings.
std::vector<Run> runs_for(const SimulateFlags& f) {
  const Config base = f.config.empty() ? Config{} : load_config_file(f.config);
  std::vector<Run> runs;
  if (f.compare.empty()) {
    runs.push_back({"", base});
    return runs;
  }
  for (const auto& entry : f.compare) {
    if (std::ifstream(entry).good()) {
      runs.push_back({stem(entry), load_config_file(entry)});
      continue;
    }
    const auto* builtin =
        std::find(std::begin(kBuiltinPolicies), std::end(kBuiltinPolicies), entry);
    if (builtin == std::end(kBuiltinPolicies)) {
      throw InputError("--compare: " + entry +
                       ": no such file, and not a built-in policy (fitscale, cluster-autoscaler, "
                       "karpenter)");
    }
    Config c = base;
    c.policy = parse_config("policy: " + entry, "--compare").policy;
    runs.push_back({entry, std::move(c)});
  }
  // Columns need distinct names: a second "a.yaml" from another directory becomes "a (2)".
  std::map<std::string, int> seen;
  for (Run& r : runs) {
    const int n = ++seen[r.name];
    if (n > 1) r.name += " (" + std::to_string(n) + ")";
  }
  return runs;
}

Catalog catalog_for(const SimulateFlags& f, const Config& config) {
  const CatalogOptions catalog_options = catalog_options_from_config(config);
  return f.catalog.empty()
             ? build_catalog(parse_catalog_csv(default_catalog_csv(), "embedded catalog"),
                             catalog_options)
             : build_catalog(parse_catalog_csv(read_file_text(f.catalog, "catalog"), f.catalog),
                             catalog_options);
}

SimReport run_one(const SimulateFlags& f, const Run& run, const std::vector<TraceJob>& jobs,
                  const std::string& label) {
  const auto wall_start = std::chrono::steady_clock::now();
  require_catalog_for_region(run.config, !f.catalog.empty());
  SimOptions options = sim_options_from_config(run.config);
  options.seed = f.seed;
  if (f.interval_s > 0) options.interval_s = f.interval_s;
  std::optional<ProgressLine> progress;
  if (!f.quiet) {
    progress.emplace(wall_start, label);
    options.progress = [&progress](const SimProgress& p) { progress->update(p); };
  }
  const Catalog catalog = catalog_for(f, run.config);
  validate_trace(jobs, catalog, f.trace);

  std::unique_ptr<Ledger> ledger;
  if (!f.ledger.empty()) {
    ledger = std::make_unique<SqliteLedger>(f.ledger, SqliteLedger::Mode::CreateNew);
  } else {
    ledger = std::make_unique<MemoryLedger>();
  }
  // Budget alerts (config `alerts:`), remembered in the SQLite ledger when there is one.
  BudgetAlerts alerts = make_budget_alerts(run.config, dynamic_cast<AlertLog*>(ledger.get()));
  SimReport report = simulate(jobs, catalog, options, ledger.get(), alerts.recorder.get());
  if (alerts.recorder && !alerts.recorder->last_error().empty()) {
    std::fprintf(stderr, "fitscale simulate: %s\n", alerts.recorder->last_error().c_str());
  }
  // The costliest jobs, as `fitscale cost --by job` would list them from the same ledger.
  const Time until = options.start + static_cast<Time>(std::ceil(report.sim.virtual_s)) + 1;
  if (auto* m = dynamic_cast<MemoryLedger*>(ledger.get())) {
    add_costliest_jobs(report, m->report(options.start, until), kCostliestJobs);
  } else if (auto* q = dynamic_cast<SqliteLedger*>(ledger.get())) {
    add_costliest_jobs(report, q->report(options.start, until), kCostliestJobs);
  }
  report.sim.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return report;
}

std::string compare_json(const std::vector<Run>& runs, const std::vector<SimReport>& reports) {
  nlohmann::ordered_json out;
  out["runs"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    out["runs"].push_back({{"name", runs[i].name},
                           {"config", runs[i].config.source},
                           {"report", nlohmann::ordered_json::parse(report_json(reports[i]))}});
  }
  return out.dump(2) + "\n";
}

// --compare on stdout: one column per run, the figures a decision turns on.
void print_comparison(const std::vector<Run>& runs, const std::vector<SimReport>& reports,
                      const std::string& trace) {
  const SimReport& first = reports.front();
  std::printf("fitscale simulate --compare: %s, %s jobs from %s, seed %llu\n",
              base_name(trace).c_str(), format_count(first.jobs.submitted).c_str(),
              first.sim.start.c_str(), static_cast<unsigned long long>(first.sim.seed));
  std::size_t width = 20;
  for (const Run& r : runs) width = std::max(width, r.name.size() + 2);
  const int w = static_cast<int>(width);
  std::printf("  %-26s", "");
  for (const Run& r : runs) std::printf("%*s", w, r.name.c_str());
  std::printf("\n");
  auto row = [&](const char* what, auto&& cell) {
    std::printf("  %-26s", what);
    for (const SimReport& r : reports) std::printf("%*s", w, cell(r).c_str());
    std::printf("\n");
  };
  row("cost", [](const SimReport& r) { return format_usd(r.cost_usd.total); });
  row("x lower bound", [](const SimReport& r) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2fx",
                  r.lower_bound_usd > 0 ? r.cost_usd.total / r.lower_bound_usd : 0.0);
    return std::string(b);
  });
  row("lost to interruptions",
      [](const SimReport& r) { return format_usd(r.excess_usd.lost_to_interruptions); });
  row("lost to evictions", [](const SimReport& r) { return format_usd(r.evictions.lost_usd); });
  row("job-hours lost to evict.", [](const SimReport& r) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", r.evictions.lost_job_hours);
    return std::string(b);
  });
  row("idle", [](const SimReport& r) { return format_usd(r.cost_usd.idle); });
  row("packing", [](const SimReport& r) { return format_usd(r.excess_usd.packing); });
  row("wait p50", [](const SimReport& r) { return short_wait(r.wait_s.p50); });
  row("wait p90", [](const SimReport& r) { return short_wait(r.wait_s.p90); });
  row("wait max", [](const SimReport& r) { return short_wait(r.wait_s.max); });
  row("jobs refused", [](const SimReport& r) { return format_count(r.jobs.refused); });
  row("nodes launched", [](const SimReport& r) { return format_count(r.nodes.launched); });
  row("wall s", [](const SimReport& r) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", r.sim.wall_s);
    return std::string(b);
  });
}

int run_simulate(const SimulateFlags& f) {
  if (!f.ledger.empty() && f.compare.size() > 1)
    throw InputError("--ledger meters one run; it cannot be used with --compare of several");
  const std::vector<Run> runs = runs_for(f);
  const std::vector<TraceJob> jobs = parse_trace(read_file_text(f.trace, "trace"), f.trace);
  std::vector<SimReport> reports;
  reports.reserve(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string label = runs.size() > 1 ? " [" + runs[i].name + " " + std::to_string(i + 1) +
                                                    "/" + std::to_string(runs.size()) + "]"
                                              : "";
    reports.push_back(run_one(f, runs[i], jobs, label));
  }

  const bool compare = !f.compare.empty();
  if (!f.report_json.empty())
    write_file(f.report_json, compare ? compare_json(runs, reports) : report_json(reports[0]));
  std::string html_note;
  if (!f.report_html.empty()) {
#ifdef FITSCALE_HAVE_HTML_REPORT
    std::vector<NamedReport> columns;
    columns.reserve(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) columns.push_back({runs[i].name, &reports[i]});
    write_file(f.report_html, report_html(columns));
#else
    html_note = "  (the HTML report is not built into this binary yet; --report-html skipped)\n";
#endif
  }
  if (!f.quiet) {
    if (compare) {
      for (std::size_t i = 0; i < runs.size(); ++i)
        print_summary(reports[i], f.trace, runs[i].name);
      print_comparison(runs, reports, f.trace);
    } else {
      print_summary(reports[0], f.trace, "");
    }
    if (!f.report_json.empty()) std::printf("  wrote       %s\n", f.report_json.c_str());
    if (!f.report_html.empty() && html_note.empty())
      std::printf("  wrote       %s\n", f.report_html.c_str());
    std::fputs(html_note.c_str(), stdout);
  }
  return 0;
}

}  // namespace

Runner register_simulate(CLI::App& app) {
  auto flags = std::make_shared<SimulateFlags>();
  CLI::App* sub = app.add_subcommand(
      "simulate", "Replay a job trace through the controller on a virtual clock");
  sub->add_option("--trace", flags->trace,
                  "Trace CSV (native format: submit_s, job, namespace, ...)")
      ->required();
  sub->add_option("--catalog", flags->catalog,
                  "Instance catalog CSV (default: the embedded AWS us-east-1 catalog)");
  sub->add_option("--config", flags->config,
                  "fitscale config YAML (budgets, scale-down, simulator settings)");
  sub->add_option("--seed", flags->seed, "Seed for spot interruptions (same seed, same report)");
  sub->add_option("--interval", flags->interval_s,
                  "Virtual seconds between controller loops (default 10)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--report-json", flags->report_json, "Write the JSON report here");
  sub->add_option("--report-html", flags->report_html, "Write the HTML report here");
  sub->add_option("--ledger", flags->ledger,
                  "Meter costs into this SQLite ledger (read it with fitscale cost)");
  sub->add_option("--compare", flags->compare,
                  "Replay once per CONFIG (a config file, or a built-in policy: fitscale, "
                  "cluster-autoscaler, karpenter, applied to --config) over the same trace and "
                  "catalog; the summary, JSON and HTML put the runs side by side")
      ->expected(1, -1);
  sub->add_flag("--quiet", flags->quiet,
                "Print nothing on success (no progress line on stderr, no summary)");
  return [flags] { return run_simulate(*flags); };
}

}  // namespace fitscale::cli
