#pragma once
// Budget objects (budgets.fitscale.io/v1alpha1) of a live cluster: an informer keeps them, the
// status subresource is written with a merge patch. A cluster without the CRD (deploy/crds not
// applied) has no Budget objects: that is said once at start, and the config file's budgets
// apply alone (the CRD applied later is seen after a restart).
#include <atomic>
#include <memory>
#include <string>

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
                  const InformerOptions& options = {});
  ~KubeBudgetStore() override;

  // Asks the API whether Budgets are served; starts the informer when they are.
  void start();
  void stop();
  bool crd_installed() const { return installed_; }

  bool synced() const override;
  std::uint64_t generation() const override;
  std::vector<BudgetObject> objects() const override;
  std::vector<BadObject> bad_objects() const override;
  std::string write_status(const BudgetObject& of, const BudgetStatus& status) override;

 private:
  KubeConfig config_;
  const obs::Logger& log_;
  std::unique_ptr<Informer<BudgetObject>> informer_;
  ApiClient writer_;  // the loop's thread only
  std::atomic<bool> started_{false};
  std::atomic<bool> installed_{false};
};

}  // namespace fitscale
