#pragma once
// Where ProvisioningRequests and the PodTemplates they refer to come from, and where their
// conditions go: a live cluster (kube/kube_provisioning_store.h) or a test's fake.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "controller/interfaces.h"
#include "model/provisioning_request.h"

namespace fitscale {

class ProvisioningRequestStore {
 public:
  virtual ~ProvisioningRequestStore() = default;
  // False while the requests or templates are not listed yet: nothing is decided then.
  virtual bool synced() const = 0;
  virtual std::uint64_t generation() const = 0;
  virtual std::vector<ProvisioningRequest> requests() const = 0;
  // PodTemplates of a namespace, by name, each template decoded as the pod it describes.
  virtual std::map<std::string, Pod> templates(const std::string& ns) const = 0;
  // Objects that could not be decoded (requests and templates), to report.
  virtual std::vector<BadObject> bad_objects() const = 0;
  // Replaces status.conditions of the request; "" on success, else what failed.
  virtual std::string write_conditions(const ProvisioningRequest& r,
                                       const std::vector<RequestCondition>& conditions) = 0;
};

}  // namespace fitscale
