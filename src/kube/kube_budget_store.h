#pragma once
// Budget objects (budgets.fitscale.io/v1alpha1) of a live cluster: an informer keeps them, the
// status subresource is written with a merge patch. A cluster without the CRD (deploy/crds not
// applied) has no Budget objects: that is said once at start, and the config file's budgets
// apply alone until the CRD is applied, which discovery, asked again every
// `rediscover_interval`, sees without a restart.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "controller/interfaces.h"
#include "kube/api_client.h"
#include "kube/informer.h"
#include "obs/logger.h"

namespace fitscale {

// Decodes Budget JSON as the API serves it; `own_ns` is where `cluster` and `default` live.
ResourceCodec<BudgetObject> budget_codec(const std::string& own_ns);
// The JSON of a status (dollars as numbers, updatedAt in RFC 3339), for the merge patch.
std::string budget_status_json(const BudgetStatus& status);

class KubeBudgetStore final : public BudgetStore {
 public:
  // `log` must outlive the store (the informer's thread writes to it).
  KubeBudgetStore(const KubeConfig& config, const obs::Logger& log, const std::string& own_ns,
                  const InformerOptions& options = {},
                  std::chrono::milliseconds rediscover_interval = std::chrono::seconds(15));
  ~KubeBudgetStore() override;

  // Asks the API whether Budgets are served; starts the informer when they are, else asks again
  // every rediscover_interval (on a thread of its own) and starts it once they are.
  void start();
  void stop();
  bool crd_installed() const { return installed_; }

  bool synced() const override;
  std::uint64_t generation() const override;
  std::vector<BudgetObject> objects() const override;
  std::vector<BadObject> bad_objects() const override;
  std::string write_status(const BudgetObject& of, const BudgetStatus& status) override;

 private:
  // Whether budgets.fitscale.io is served (or cannot be told: then it is assumed and read).
  static bool discover(ApiClient& client, const obs::Logger& log, bool quiet);
  void rediscover();

  KubeConfig config_;
  const obs::Logger& log_;
  ApiClientOptions client_options_;
  std::chrono::milliseconds rediscover_interval_;
  std::unique_ptr<Informer<BudgetObject>> informer_;
  ApiClient writer_;  // the loop's thread only
  std::atomic<bool> started_{false};
  std::atomic<bool> installed_{false};
  std::mutex mu_;  // guards stopping_ for the rediscovery thread
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread rediscovery_;
};

}  // namespace fitscale
