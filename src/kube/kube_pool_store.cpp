#include "kube/kube_pool_store.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kube/json_list_page.h"
#include "kube/json_yaml.h"
#include "model/error.h"
#include "model/money.h"

namespace fitscale {

namespace {

using json = nlohmann::json;

std::string quantity_cpu(std::int64_t milli) {
  return milli % 1000 == 0 ? std::to_string(milli / 1000) : std::to_string(milli) + "m";
}

std::string quantity_memory(std::int64_t bytes) {
  constexpr std::int64_t kGi = 1LL << 30, kMi = 1LL << 20;
  if (bytes % kGi == 0) return std::to_string(bytes / kGi) + "Gi";
  if (bytes % kMi == 0) return std::to_string(bytes / kMi) + "Mi";
  return std::to_string(bytes);
}

}  // namespace

ResourceCodec<PoolObject> pool_codec() {
  ResourceCodec<PoolObject> c;
  c.resource = "pools";
  c.path = "/apis/fitscale.io/v1alpha1/pools";  // literal: tests/e2e/test_deploy.py reads it
  c.decode_list = [](std::string_view page, std::vector<std::pair<std::string, PoolObject>>& items,
                     std::vector<std::pair<std::string, std::string>>& bad) {
    decode_list_page(
        page, "pools", [](const json& item) { return read_pool_manifest(yaml_of_json(item), ""); },
        items, bad, ObjectScope::Cluster);  // cluster scoped: the cache key is the name
  };
  c.decode_object = [](std::string_view object_json) {
    return read_pool_manifest(yaml_of_json(parse_api_json(object_json, "pool")), "");
  };
  return c;
}

std::string pool_status_json(const Pool& pool, const PoolStatus& s) {
  std::string used;
  auto add = [&](const char* what, const std::string& in_use, const std::string& limit) {
    used += (used.empty() ? "" : ", ") + std::string(what) + " " + in_use + "/" + limit;
  };
  const PoolLimits& l = pool.limits;
  if (l.nodes) add("nodes", std::to_string(s.nodes), std::to_string(*l.nodes));
  if (l.gpus) add("gpus", std::to_string(s.gpus), std::to_string(*l.gpus));
  if (l.cpu_milli) add("cpu", quantity_cpu(s.cpu_milli), quantity_cpu(*l.cpu_milli));
  if (l.memory_bytes)
    add("memory", quantity_memory(s.memory_bytes), quantity_memory(*l.memory_bytes));
  if (l.usd_per_hour)
    add("usdPerHour", format_usd_micros(s.micros_per_hour), format_usd(*l.usd_per_hour));
  json j = {{"nodes", s.nodes},
            {"gpus", s.gpus},
            {"cpu", quantity_cpu(s.cpu_milli)},
            {"memory", quantity_memory(s.memory_bytes)},
            {"usdPerHour", std::round(static_cast<double>(s.micros_per_hour)) / 1e6},
            {"limitsUsed", used}};
  return j.dump();
}

KubePoolStore::KubePoolStore(const KubeConfig& config, const obs::Logger& log,
                             const InformerOptions& options)
    : log_(log),
      informer_(std::make_unique<Informer<PoolObject>>(config, pool_codec(), log, options)),
      writer_(config, options.client) {}

KubePoolStore::~KubePoolStore() { stop(); }

void KubePoolStore::start() {
  // Discovery of the group version: 404 when no fitscale CRD is installed.
  const HttpResponse r = writer_.get("/apis/fitscale.io/v1alpha1");
  bool served = false;
  if (r.ok()) {
    try {
      for (const auto& res : json::parse(r.body).value("resources", json::array())) {
        if (res.value("name", std::string()) == "pools") served = true;
      }
    } catch (const json::exception&) {
    }
  }
  if (!served && r.status != 0 && r.status != 404 && !r.ok()) {
    // An answer other than "not found" (403: RBAC) is not "no CRD": keep trying to read them.
    log_.warn("Pool objects: cannot ask whether pools.fitscale.io is installed",
              {{"error", describe_failure(r)}});
    served = true;
  }
  if (!served && r.status == 0) served = true;  // the API server is not answering yet: retry
  installed_ = served;
  if (!served) {
    log_.info(
        "Pool objects: pools.fitscale.io is not installed (kubectl apply -f deploy/crds); the "
        "config file's pools apply");
  }
  started_ = true;
  if (served) informer_->start();
}

void KubePoolStore::stop() {
  if (informer_) informer_->stop();
}

bool KubePoolStore::synced() const {
  return started_ && (!installed_ || informer_->cache().synced());
}

std::uint64_t KubePoolStore::generation() const { return informer_->cache().generation(); }

std::vector<PoolObject> KubePoolStore::objects() const { return informer_->cache().items(); }

std::vector<BadObject> KubePoolStore::bad_objects() const { return informer_->cache().bad(); }

std::string KubePoolStore::write_status(const PoolObject& of, const PoolStatus& status) {
  const std::string body = "{\"status\":" + pool_status_json(of.pool, status) + "}";
  // The path literal: tests/e2e/test_deploy.py reads the calls from the source for RBAC.
  const HttpResponse r =
      writer_.send("PATCH", "/apis/fitscale.io/v1alpha1/pools/" + of.name + "/status", body,
                   "application/merge-patch+json");
  return r.ok() ? std::string() : describe_failure(r);
}

}  // namespace fitscale
