#include "kube/kube_budget_store.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "kube/json_list_page.h"
#include "kube/json_yaml.h"
#include "model/budget_manifest.h"
#include "model/error.h"

namespace fitscale {

namespace {

using json = nlohmann::json;

BudgetObject decode(const json& item, const std::string& own_ns) {
  return read_budget_manifest(yaml_of_json(item), "", own_ns);
}

json usd(Micros m) { return std::round(static_cast<double>(m)) / 1e6; }

}  // namespace

ResourceCodec<BudgetObject> budget_codec(const std::string& own_ns) {
  ResourceCodec<BudgetObject> c;
  c.resource = "budgets";
  c.path = "/apis/fitscale.io/v1alpha1/budgets";  // literal: tests/e2e/test_deploy.py reads it
  c.decode_list = [own_ns](std::string_view page,
                           std::vector<std::pair<std::string, BudgetObject>>& items,
                           std::vector<std::pair<std::string, std::string>>& bad) {
    decode_list_page(
        page, "budgets", [&](const json& item) { return decode(item, own_ns); }, items, bad);
  };
  c.decode_object = [own_ns](std::string_view object_json) {
    return decode(parse_api_json(object_json), own_ns);
  };
  return c;
}

std::string budget_status_json(const BudgetStatus& s) {
  json j = {{"day", s.day},
            {"month", s.month},
            {"spentToday", usd(s.spent_today)},
            {"spentThisMonth", usd(s.spent_this_month)},
            {"committedUsdPerHour", usd(s.committed_micros_per_hour)},
            {"alertsSent", s.alerts_sent},
            {"updatedAt", format_rfc3339(s.updated_at)}};
  return j.dump();
}

KubeBudgetStore::KubeBudgetStore(const KubeConfig& config, const obs::Logger& log,
                                 const std::string& own_ns, const InformerOptions& options,
                                 std::chrono::milliseconds rediscover_interval)
    : config_(config),
      log_(log),
      client_options_(options.client),
      rediscover_interval_(rediscover_interval),
      informer_(
          std::make_unique<Informer<BudgetObject>>(config, budget_codec(own_ns), log, options)),
      writer_(config, options.client) {}

KubeBudgetStore::~KubeBudgetStore() { stop(); }

bool KubeBudgetStore::discover(ApiClient& client, const obs::Logger& log, bool quiet) {
  // Discovery of the group version: 404 when the CRD is not installed.
  const HttpResponse r = client.get("/apis/fitscale.io/v1alpha1");
  bool served = false;
  if (r.ok()) {
    try {
      for (const auto& res : json::parse(r.body).value("resources", json::array())) {
        if (res.value("name", std::string()) == "budgets") served = true;
      }
    } catch (const json::exception&) {
    }
  }
  if (!served && r.status != 0 && r.status != 404 && !r.ok()) {
    // An answer other than "not found" (403: RBAC) is not "no CRD": keep trying to read them.
    if (!quiet) {
      log.warn("Budget objects: cannot ask whether budgets.fitscale.io is installed",
               {{"error", describe_failure(r)}});
    }
    served = true;
  }
  if (!served && r.status == 0) served = true;  // the API server is not answering yet: retry
  return served;
}

void KubeBudgetStore::start() {
  const bool served = discover(writer_, log_, false);
  installed_ = served;
  started_ = true;
  if (served) {
    informer_->start();
    return;
  }
  log_.warn(
      "Budget objects: budgets.fitscale.io is not installed (kubectl apply -f deploy/crds); "
      "using the config file's budgets until it is, and spend does not survive a restart "
      "without --ledger");
  rediscovery_ = std::thread([this] { rediscover(); });
}

// A CRD applied after start (issue 12): asked about on a slow interval, so an absent CRD costs
// one small GET per interval, and read from the first answer that it is served.
void KubeBudgetStore::rediscover() {
  ApiClient client(config_, client_options_);  // the loop's thread keeps writer_
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, rediscover_interval_, [this] { return stopping_; })) {
    lock.unlock();
    const bool served = discover(client, log_, true);
    lock.lock();
    if (!served || stopping_) continue;
    log_.info("Budget objects: budgets.fitscale.io is installed now; reading Budget objects");
    informer_->start();
    installed_ = true;
    return;
  }
}

void KubeBudgetStore::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (rediscovery_.joinable()) rediscovery_.join();
  if (informer_) informer_->stop();
}

bool KubeBudgetStore::synced() const {
  return started_ && (!installed_ || informer_->cache().synced());
}

std::uint64_t KubeBudgetStore::generation() const { return informer_->cache().generation(); }

std::vector<BudgetObject> KubeBudgetStore::objects() const { return informer_->cache().items(); }

std::vector<BadObject> KubeBudgetStore::bad_objects() const { return informer_->cache().bad(); }

std::string KubeBudgetStore::write_status(const BudgetObject& of, const BudgetStatus& status) {
  const std::string body = "{\"status\":" + budget_status_json(status) + "}";
  const HttpResponse r = writer_.send(
      "PATCH", "/apis/fitscale.io/v1alpha1/namespaces/" + of.ns + "/budgets/" + of.name + "/status",
      body, "application/merge-patch+json");
  return r.ok() ? std::string() : describe_failure(r);
}

}  // namespace fitscale
