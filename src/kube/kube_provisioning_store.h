#pragma once
// ProvisioningRequests (autoscaling.x-k8s.io/v1, else v1beta1 where only that is served) and
// PodTemplates of a live cluster, kept by informers; conditions written to the status
// subresource. A cluster without the CRD has no requests: said once at start.
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "controller/provisioning_store.h"
#include "kube/api_client.h"
#include "kube/informer.h"
#include "obs/logger.h"

namespace fitscale {

struct PodTemplateView {
  std::string ns;
  std::string name;
  Pod pod;  // the template, decoded as the pod it describes
};

// One request as the API serves it (either version: their schemas are the same). Throws
// InputError naming the field.
ProvisioningRequest decode_provisioning_request(const nlohmann::json& object);
// One PodTemplate; its pod named after the template. Throws InputError naming the field.
PodTemplateView decode_pod_template(const nlohmann::json& object,
                                    const std::vector<std::string>& gpu_models);
// The status patch body: {"status":{"conditions":[...]}} (a merge patch replaces the list).
std::string provisioning_status_json(const std::vector<RequestCondition>& conditions);

class KubeProvisioningStore final : public ProvisioningRequestStore {
 public:
  // `log` must outlive the store (the informers' threads write to it).
  KubeProvisioningStore(const KubeConfig& config, const obs::Logger& log,
                        std::vector<std::string> gpu_models, const InformerOptions& options = {});
  ~KubeProvisioningStore() override;

  // Asks the API which version is served and starts the informers when one is.
  void start();
  void stop();
  // Writes happen only while the gate allows (leader, not dry run).
  void set_write_gate(std::function<bool()> gate);
  bool installed() const { return installed_; }
  const std::string& api_version() const { return version_; }

  bool synced() const override;
  std::uint64_t generation() const override;
  std::vector<ProvisioningRequest> requests() const override;
  std::map<std::string, Pod> templates(const std::string& ns) const override;
  std::vector<BadObject> bad_objects() const override;
  std::string write_conditions(const ProvisioningRequest& r,
                               const std::vector<RequestCondition>& conditions) override;

 private:
  KubeConfig config_;
  const obs::Logger& log_;
  std::vector<std::string> gpu_models_;
  InformerOptions options_;
  std::unique_ptr<Informer<ProvisioningRequest>> requests_;
  std::unique_ptr<Informer<PodTemplateView>> templates_;
  std::mutex write_mu_;
  ApiClient writer_;
  std::function<bool()> gate_;
  std::string version_;  // "v1" or "v1beta1"
  std::atomic<bool> started_{false};
  std::atomic<bool> installed_{false};
};

}  // namespace fitscale
