// `fitscale validate [--config FILE] [--budgets FILE]... [--pools FILE]...`: reads the config
// exactly as every other command does, and Budget and Pool manifests exactly as `fitscale run`
// reads Budget and Pool objects, and
// says "FILE: ok" with the budgets that will apply, or the error naming file, line and key (exit
// code 2). Every Budget of every file is checked: one bad object does not hide the next.
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/pool_manifest_file.h"
#include "model/budget_manifest.h"
#include "model/catalog.h"
#include "model/config.h"
#include "model/error.h"
#include "model/file_text.h"
#include "model/money.h"
#include "model/pool_config.h"
#include "model/yaml_documents.h"
#include "obs/redact.h"
#include "planner/policy_from_config.h"

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

void print_budgets(const Budgets& b, const char* from) {
  std::printf("budgets (%s):\n", from);
  std::printf("  %-22s usdPerHour %s, gpus %s, nodes %s\n", "cluster",
              usd(b.cluster.usd_per_hour).c_str(), count(b.cluster.gpus).c_str(),
              count(b.cluster.nodes).c_str());
  print_namespace("default", b.defaults);
  for (const auto& [ns, own] : b.namespaces) {
    // What applies to the namespace: its own keys, the default's for the others.
    print_namespace(("namespace " + ns).c_str(), b.for_namespace(ns));
  }
  std::printf("budget gate: %s\n",
              b.gate ? "on (budgets.gate): new pods of budgeted namespaces wait for admission"
                     : "off (budgets.gate: false): budgets limit launches only");
}

void print_summary(const Config& c) {
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

// Every Budget document of a manifest file (a List's items too); a document of another kind is
// an error, so a config file given as --budgets (or the reverse) is caught.
std::vector<BudgetObject> read_budget_file(const std::string& path, const std::string& own_ns,
                                           std::vector<std::string>& errors) {
  std::vector<BudgetObject> out;
  std::vector<YAML::Node> objects;
  try {
    objects = manifest_objects(load_yaml_documents(read_file_text(path, "Budget manifest"), path));
  } catch (const InputError& e) {
    errors.push_back(e.what());
    return out;
  }
  for (const auto& o : objects) {
    const YAML::Mark m = o.Mark();
    const std::string where = m.line >= 0 ? path + ":" + std::to_string(m.line + 1) : path;
    if (!is_budget_manifest(o)) {
      const bool config = o.IsMap() && (o["budgets"] || o["zones"] || o["controller"]);
      errors.push_back(where + ": not a Budget (apiVersion fitscale.io/v1alpha1, kind Budget)" +
                       (config ? "; a config file goes with --config" : ""));
      continue;
    }
    try {
      BudgetObject b = read_budget_manifest(o, path, own_ns);
      if (!b.status_problem.empty()) errors.push_back(where + ": " + b.status_problem);
      out.push_back(std::move(b));
    } catch (const InputError& e) {
      errors.push_back(e.what());
    }
  }
  if (objects.empty()) errors.push_back(path + ": holds no Budget");
  return out;
}

// A config file that is a Budget manifest gets told where it goes instead of "unknown key kind".
void refuse_budget_as_config(const std::string& path) {
  YAML::Node doc;
  try {
    const auto objects =
        manifest_objects(load_yaml_documents(read_file_text(path, "config file"), path));
    if (objects.empty()) return;
    doc = objects.front();
  } catch (const InputError&) {
    return;  // load_config_file reports it with its line
  }
  if (is_budget_manifest(doc)) {
    throw InputError(path + ": is a Budget manifest, not a config file: check it with --budgets " +
                     path);
  }
}

Config with_pools_of(Config c, const std::vector<Pool>& pools) {
  c.pools = pools;
  return c;
}

// The pools that apply and how many offerings (type x zone x capacity type) each admits from
// the catalog: a pool that admits none is almost surely a typo in its requirements.
void print_pools(const Config& c, const std::string& catalog_path,
                 const std::vector<Pool>& objects) {
  const std::string text = catalog_path.empty() ? std::string(default_catalog_csv())
                                                : read_file_text(catalog_path, "catalog");
  const Catalog cat = build_catalog(
      parse_catalog_csv(text, catalog_path.empty() ? "embedded catalog" : catalog_path),
      catalog_options_from_config(objects.empty() ? c : with_pools_of(c, objects)));
  std::printf("pools (%s):\n", !objects.empty()
                                   ? "the Pool objects: when any exists, they are the pools"
                               : c.pools.empty() ? "the default pool: the file has no `pools` key"
                                                 : "from the file");
  for (std::uint32_t i = 0; i < cat.pools.size(); ++i) {
    std::size_t n = 0;
    for (const Offering& o : cat.offerings) n += o.pool_index == i ? 1 : 0;
    std::printf("  %s; %zu offerings%s\n", describe(cat.pools[i]).c_str(), n,
                n == 0 ? " (warning: its requirements admit no offering of the catalog)" : "");
  }
}

}  // namespace

Runner register_validate(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "validate",
      "Check a config file, Budget and Pool manifests, and show the budgets and pools that apply");
  auto path = std::make_shared<std::string>();
  auto catalog = std::make_shared<std::string>();
  auto budget_files = std::make_shared<std::vector<std::string>>();
  auto own_ns = std::make_shared<std::string>("kube-system");
  auto pool_files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--config", *path, "config file (YAML, docs/configuration.md)");
  cmd->add_option("--budgets", *budget_files,
                  "Budget manifest (YAML, kind Budget, docs/budgets.md); repeatable. The budgets "
                  "shown are the config's (or the safe defaults) with the Budgets on top, as "
                  "`fitscale run` applies them");
  cmd->add_option("--pools", *pool_files,
                  "Pool manifest (YAML, kind Pool, docs/pools.md); repeatable. The pools shown are "
                  "the Pools' (as `fitscale run` applies them: when any Pool object exists, the "
                  "objects are the pools)");
  cmd->add_option("--budgets-namespace", *own_ns,
                  "Namespace whose Budgets named cluster and default hold the cluster-wide and "
                  "default caps (as `fitscale run --budgets-namespace`)")
      ->capture_default_str();
  cmd->add_option("--catalog", *catalog,
                  "the price catalog CSV it will run with (required for a region other than " +
                      std::string(kEmbeddedCatalogRegion) + ")");
  return [path, catalog, budget_files, own_ns, pool_files] {
    if (path->empty() && budget_files->empty() && pool_files->empty())
      throw InputError("validate: give --config FILE, --budgets FILE, --pools FILE, or several");
    Config c;
    if (!path->empty()) {
      refuse_budget_as_config(*path);
      if (const std::string hint = manifest_hint(*path); !hint.empty()) throw InputError(hint);
      c = load_config_file(*path);  // InputError -> "fitscale: error: FILE:LINE: key: ..." exit 2
      require_catalog_for_region(c, !catalog->empty());
      std::printf("%s: ok\n", path->c_str());
    }
    std::vector<std::string> errors;
    std::vector<BudgetObject> objects;
    for (const auto& file : *budget_files) {
      const std::size_t before = errors.size();
      auto read = read_budget_file(file, *own_ns, errors);
      if (errors.size() == before)
        std::printf("%s: ok (%zu Budget object(s))\n", file.c_str(), read.size());
      for (auto& b : read) objects.push_back(std::move(b));
    }
    const std::size_t before_pools = errors.size();
    const std::vector<Pool> pool_objects = read_pool_files(*pool_files, errors);
    if (errors.size() == before_pools && !pool_files->empty())
      std::printf("pools: ok (%zu Pool object(s))\n", pool_objects.size());
    const MergedBudgets merged = merge_budget_objects(budgets_or_defaults(c), objects);
    for (const auto& p : merged.problems) errors.push_back("Budget " + p.key + ": " + p.error);
    if (!errors.empty()) {
      for (const auto& e : errors) std::fprintf(stderr, "fitscale: error: %s\n", e.c_str());
      return 2;
    }
    std::string from = c.budgets ? "from the file" : "safe defaults: the file has no `budgets` key";
    if (path->empty()) from = "safe defaults: no config file";
    if (!objects.empty()) from += ", with " + std::to_string(objects.size()) + " Budget object(s)";
    print_budgets(merged.budgets, from.c_str());
    if (!path->empty()) print_summary(c);
    if (!path->empty() || !pool_objects.empty()) print_pools(c, *catalog, pool_objects);
    return 0;
  };
}

}  // namespace fitscale::cli
