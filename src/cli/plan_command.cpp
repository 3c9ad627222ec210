// `fitscale plan --cluster FILE [--catalog FILE] [--config FILE] [--now RFC3339]`: one planner
// pass over a cluster file, printed as JSON. The wall clock is read here (and only here) unless
// --now pins it, so tests and examples give the same plan every time.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.h"
#include "kube/decode.h"
#include "model/catalog.h"
#include "model/config.h"
#include "model/daemonset_overhead.h"
#include "model/error.h"
#include "model/file_text.h"
#include "planner/plan.h"
#include "planner/policy_from_config.h"

namespace fitscale::cli {
namespace {

struct PlanFlags {
  std::string cluster;
  std::string catalog;
  std::string config;
  std::string now;
};

// A cluster file has Nodes, not fitscale's instance records. A node carrying the
// fitscale.io/pool label was launched by fitscale, so it is treated as managed: its type, zone
// and capacity type come from its labels, its price from the catalog, and, lacking the
// controller's bookkeeping, it counts as empty since its creation when no batch or
// do-not-disrupt pod runs on it (the earliest the file can prove).
void adopt_managed_nodes(Snapshot& snapshot, const Catalog& catalog) {
  std::map<std::string, bool, std::less<>> pinned;
  for (const Pod& p : snapshot.pods) {
    if (p.pins_node()) pinned[p.node_name] = true;
  }
  auto label_of = [](const Node& n, std::string_view key) {
    auto it = n.labels.find(key);
    return it == n.labels.end() ? std::string() : it->second;
  };
  for (Node& n : snapshot.nodes) {
    if (n.labels.find(label::kPool) == n.labels.end()) continue;
    n.managed = true;
    n.instance_type = label_of(n, label::kInstanceType);
    n.zone = label_of(n, label::kZone);
    n.capacity_type = label_of(n, label::kCapacityType) == "on-demand" ? CapacityType::OnDemand
                                                                       : CapacityType::Spot;
    const auto slash = n.provider_id.rfind('/');
    n.instance_id = slash == std::string::npos ? n.name : n.provider_id.substr(slash + 1);
    n.launched_at = n.created;
    for (const Offering& o : catalog.offerings) {
      if (o.instance_type == n.instance_type && o.zone == n.zone &&
          o.capacity_type == n.capacity_type) {
        n.price_micros_per_hour = o.micros_per_hour;
        break;
      }
    }
    if (!pinned.count(n.name)) n.empty_since = n.created;
  }
}

double round_to(double v, double unit) { return std::round(v / unit) * unit; }

nlohmann::ordered_json to_json(const Plan& plan, const Catalog& catalog, double elapsed_ms) {
  using nlohmann::ordered_json;
  ordered_json out;
  out["launch"] = ordered_json::array();
  Micros total = 0;
  for (const LaunchDecision& l : plan.launch) {
    const Offering& o = catalog.offerings[l.offering_index];
    total += o.micros_per_hour * l.count;
    out["launch"].push_back({{"instance_type", l.instance_type},
                             {"zone", l.zone},
                             {"capacity_type", to_string(l.capacity_type)},
                             {"count", l.count},
                             {"usd_per_hour", micros_to_dollars(o.micros_per_hour)},
                             {"pods", l.pods}});
  }
  out["remove"] = ordered_json::array();
  for (const RemoveDecision& r : plan.remove)
    out["remove"].push_back({{"node", r.node}, {"reason", r.reason}});
  out["unschedulable"] = ordered_json::array();
  for (const UnschedulableDecision& u : plan.unschedulable) {
    out["unschedulable"].push_back({{"pod", u.pod}, {"reason", u.reason}});
  }
  // Summed in micro-dollars so the total is exact (no 14.687999999 from adding doubles).
  out["usd_per_hour"] = micros_to_dollars(total);
  out["elapsed_ms"] = round_to(elapsed_ms, 0.001);
  return out;
}

int run_plan(const PlanFlags& f) {
  Config config;
  if (!f.config.empty()) config = load_config_file(f.config);
  require_catalog_for_region(config, !f.catalog.empty());
  const Time now = f.now.empty()
                       ? static_cast<Time>(std::chrono::duration_cast<std::chrono::seconds>(
                                               std::chrono::system_clock::now().time_since_epoch())
                                               .count())
                       : parse_rfc3339(f.now);

  // The catalog's GPU model names are needed to decode aliases (instance-gpu-name is lower case).
  const std::string catalog_text =
      f.catalog.empty() ? std::string(default_catalog_csv()) : read_file_text(f.catalog, "catalog");
  std::vector<InstanceType> types =
      parse_catalog_csv(catalog_text, f.catalog.empty() ? "embedded catalog" : f.catalog);
  CatalogOptions copts = catalog_options_from_config(config);
  {
    const Catalog probe = build_catalog(types, copts);  // for gpu_models only
    const std::string text = read_file_text(f.cluster, "cluster");
    DecodedObjects objects = decode_objects(text, f.cluster, probe.gpu_models);
    if (copts.allocatable.daemonset_overhead.is_zero()) {
      copts.allocatable.daemonset_overhead = daemonset_overhead(objects.pods);
    }
    const Catalog catalog = build_catalog(std::move(types), copts);
    Snapshot snapshot;
    snapshot.nodes = std::move(objects.nodes);
    snapshot.pods = std::move(objects.pods);
    adopt_managed_nodes(snapshot, catalog);
    const Policy policy = policy_from_config(config);

    const auto t0 = std::chrono::steady_clock::now();
    const Plan plan = fitscale::plan(snapshot, catalog, policy, now);
    const auto t1 = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    std::printf("%s\n", to_json(plan, catalog, ms).dump(2).c_str());
  }
  return 0;
}

}  // namespace

Runner register_plan(CLI::App& app) {
  auto flags = std::make_shared<PlanFlags>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "Print the plan for a cluster file: launches, removals, unschedulable pods");
  cmd->add_option("--cluster", flags->cluster,
                  "nodes and pods: JSON or YAML (kubectl get nodes,pods -A -o json)")
      ->required();
  cmd->add_option("--catalog", flags->catalog,
                  "instance catalog CSV (default: the embedded AWS us-east-1 catalog)");
  cmd->add_option("--config", flags->config, "fitscale config YAML (zones, budgets, scale-down)");
  cmd->add_option("--now", flags->now, "plan as of this time, RFC 3339 (default: now)");
  return [flags] { return run_plan(*flags); };
}

}  // namespace fitscale::cli
