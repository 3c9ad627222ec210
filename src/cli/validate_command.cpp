// `fitscale validate --config FILE`: reads the config exactly as every other command does and
// says "FILE: ok" with the budgets that will apply, or the error naming file, line and key
// (exit code 2, through main's InputError handler).
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "model/config.h"
#include "model/money.h"
#include "obs/redact.h"

namespace fitscale::cli {
namespace {

std::string usd(const std::optional<double>& v) { return v ? format_usd(*v) : "no cap"; }
std::string count(const std::optional<std::int64_t>& v) { return v ? format_count(*v) : "no cap"; }
std::string runtime(const std::optional<Seconds>& v) { return v ? format_duration(*v) : "none"; }

void print_namespace(const char* label, const NamespaceBudget& b) {
  std::printf(
      "  %-22s usdPerHour %s, usdPerDay %s, usdPerMonth %s, usdPerJob %s, maxRuntime %s, "
      "maxRuntimeAction %s\n",
      label, usd(b.usd_per_hour).c_str(), usd(b.usd_per_day).c_str(), usd(b.usd_per_month).c_str(),
      usd(b.usd_per_job).c_str(), runtime(b.max_runtime).c_str(),
      to_string(b.max_runtime_action.value_or(MaxRuntimeAction::Alert)));
}

void print_summary(const Config& c) {
  const Budgets b = budgets_or_defaults(c);
  std::printf("budgets (%s):\n",
              c.budgets ? "from the file" : "safe defaults: the file has no `budgets` key");
  std::printf("  %-22s usdPerHour %s, gpus %s, nodes %s\n", "cluster",
              usd(b.cluster.usd_per_hour).c_str(), count(b.cluster.gpus).c_str(),
              count(b.cluster.nodes).c_str());
  print_namespace("default", b.defaults);
  for (const auto& [ns, own] : b.namespaces) {
    // What applies to the namespace: its own keys, the default's for the others.
    print_namespace(("namespace " + ns).c_str(), b.for_namespace(ns));
  }
  if (c.alerts.webhook.empty()) {
    std::printf("alerts: none (no alerts.webhook)\n");
  } else {
    std::string t;
    for (int x : c.alerts.thresholds) t += (t.empty() ? "" : ", ") + std::to_string(x) + "%";
    // The path of a webhook URL is its credential (anyone who has it may post): host only.
    std::printf("alerts: %s at %s of usdPerDay and usdPerMonth\n",
                obs::url_origin(c.alerts.webhook).c_str(), t.c_str());
  }
  std::string zones;
  for (const auto& z : c.zones) zones += (zones.empty() ? "" : ", ") + z;
  std::printf(
      "cluster %s, region %s, zones %s, pool %s, loop every %s, empty nodes removed after %s, "
      "NotReady nodes after %s, no node removed as empty within %s of its launch\n",
      c.cluster_name.c_str(), c.region.c_str(), zones.c_str(), c.pool.c_str(),
      format_duration(c.controller.interval_s).c_str(),
      format_duration(c.scale_down.empty_after_s).c_str(),
      format_duration(c.scale_down.not_ready_after_s).c_str(),
      format_duration(c.scale_down.delay_after_launch_s).c_str());
}

}  // namespace

Runner register_validate(CLI::App& app) {
  auto* cmd = app.add_subcommand("validate", "Check a config file and show the budgets that apply");
  auto path = std::make_shared<std::string>();
  auto catalog = std::make_shared<std::string>();
  cmd->add_option("--config", *path, "config file (YAML, docs/configuration.md)")->required();
  cmd->add_option("--catalog", *catalog,
                  "the price catalog CSV it will run with (required for a region other than " +
                      std::string(kEmbeddedCatalogRegion) + ")");
  return [path, catalog] {
    const Config c =
        load_config_file(*path);  // InputError -> "fitscale: error: FILE:LINE: key: ..." exit 2
    require_catalog_for_region(c, !catalog->empty());
    std::printf("%s: ok\n", path->c_str());
    print_summary(c);
    return 0;
  };
}

}  // namespace fitscale::cli
