#include "cli/run_pools.h"

namespace fitscale::cli {

RunPools::RunPools(const KubeConfig& kube, const obs::Logger& log, const Config& config,
                   ClusterView& events, const Catalog& catalog)
    : log_(log), store_(kube, log), sync_(store_, file_pools(config)), usage_(catalog) {
  sync_.on_problem([&log, &events](const PoolProblem& p) {
    log.warn("Pool object problem", {{"object", p.name.empty() ? "Pool objects" : "Pool " + p.name},
                                     {"error", p.error},
                                     {"consequence", p.consequence}});
    if (p.name.empty()) return;
    events.record_event(
        ObjectRef{"Pool", "", p.name, p.uid, p.resource_version, "fitscale.io/v1alpha1"}, "Warning",
        "InvalidPool", p.error + "; " + p.consequence);
  });
}

RunPools::~RunPools() { store_.stop(); }

std::vector<Pool> RunPools::file_pools(const Config& config) {
  return config.pools.empty() ? std::vector<Pool>{default_pool(config.pool)} : config.pools;
}

CatalogOptions RunPools::open_options(CatalogOptions options) {
  options.pools = {Pool{}};  // no requirements, labels or taints: every offering
  return options;
}

bool RunPools::update(const Catalog& all, Catalog& catalog) {
  bool changed = false;
  const std::vector<Pool>& pools = sync_.pools(changed);
  if (!changed) return false;
  catalog = with_pools(all, pools);
  std::string names;
  for (const Pool& p : pools) names += (names.empty() ? "" : ", ") + p.name;
  log_.info("pools", {{"from", sync_.source()},
                      {"pools", names},
                      {"offerings", std::to_string(catalog.offerings.size())}});
  return true;
}

}  // namespace fitscale::cli
