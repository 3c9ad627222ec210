#pragma once
// Dynamic admission (admissionregistration.k8s.io/v1), as kube-apiserver calls it: on create,
// update and delete, every MutatingWebhookConfiguration webhook whose rules, namespaceSelector
// and objectSelector match gets an AdmissionReview v1 POSTed over HTTPS (its caBundle verifies
// the server) and may return a JSONPatch; then every matching validating webhook may refuse.
// failurePolicy Fail (the default) refuses the request when a webhook cannot be called or
// answers nonsense; Ignore goes on without it. clientConfig.url only: clientConfig.service
// names a Service, which nothing in the virtual cluster runs, so such a webhook counts as
// unreachable (and its failurePolicy decides).
#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "kube/api_client.h"
#include "vcluster/object_store.h"
#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {

struct AdmissionAttributes {
  const ResourceInfo* resource = nullptr;
  std::string operation;  // CREATE UPDATE DELETE
  std::string ns;
  std::string name;
  std::string subresource;
  nlohmann::json object;      // null on DELETE
  nlohmann::json old_object;  // null on CREATE
  bool dry_run = false;
};

// POSTs `body` (JSON) to an https URL, verifying the server with `ca_pem` (empty = system CAs),
// giving up after `timeout_s`.
using WebhookPost = std::function<HttpResponse(const std::string& url, const std::string& ca_pem,
                                               const std::string& body, long timeout_s)>;
WebhookPost https_webhook_post();  // libcurl, through ApiClient

// On create and update of a Mutating- or ValidatingWebhookConfiguration: the v1 defaults
// (failurePolicy Fail, timeoutSeconds 10, empty selectors, matchPolicy Equivalent) and the
// checks kube-apiserver makes (name, sideEffects None/NoneOnDryRun, admissionReviewVersions with
// v1, exactly one of clientConfig.url and .service, an https URL, timeoutSeconds 1..30).
// Throws ApiError 422 naming the fields.
void admit_webhook_configuration(const std::string& kind, nlohmann::json& config);

class AdmissionWebhooks {
 public:
  AdmissionWebhooks(const ObjectStore& store, WebhookPost post);
  // Runs the mutating webhooks in order (configurations by name, webhooks as listed) and
  // returns the object as they left it. Throws ApiError when one refuses or fails with
  // failurePolicy Fail.
  nlohmann::json mutate(const AdmissionAttributes& a);
  // Runs the validating webhooks. Throws ApiError as mutate does.
  void validate(const AdmissionAttributes& a);

 private:
  nlohmann::json run(const char* configurations, const AdmissionAttributes& a, bool mutating);
  bool matches(const nlohmann::json& hook, const AdmissionAttributes& a,
               const nlohmann::json& object) const;
  // One call; returns the patched object (mutating) or `object`.
  nlohmann::json call(const nlohmann::json& hook, const AdmissionAttributes& a,
                      const nlohmann::json& object, bool mutating);

  const ObjectStore& store_;
  WebhookPost post_;
  std::atomic<std::uint64_t> calls_{0};
};

}  // namespace fitscale::vcluster
