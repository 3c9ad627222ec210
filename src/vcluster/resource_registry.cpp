#include "vcluster/resource_registry.h"

#include <mutex>
#include <stdexcept>

namespace fitscale::vcluster {
namespace {

ResourceInfo builtin(std::string group, std::string plural, std::string singular, std::string kind,
                     bool namespaced, std::vector<std::string> short_names = {},
                     std::vector<std::string> subresources = {},
                     std::vector<std::string> categories = {}) {
  ResourceInfo r;
  r.group = std::move(group);
  r.version = "v1";
  r.plural = std::move(plural);
  r.singular = std::move(singular);
  r.kind = std::move(kind);
  r.namespaced = namespaced;
  r.short_names = std::move(short_names);
  r.subresources = std::move(subresources);
  r.categories = std::move(categories);
  return r;
}

std::vector<ResourceInfo> make_builtins() {
  const std::string rbac = "rbac.authorization.k8s.io";
  const std::string webhooks = "admissionregistration.k8s.io";
  std::vector<ResourceInfo> t = {
      builtin("", "namespaces", "namespace", "Namespace", false, {"ns"}, {"status"}),
      builtin("", "nodes", "node", "Node", false, {"no"}, {"status"}),
      builtin("", "pods", "pod", "Pod", true, {"po"}, {"status", "eviction", "binding", "log"},
              {"all"}),
      builtin("", "events", "event", "Event", true, {"ev"}),
      builtin("coordination.k8s.io", "leases", "lease", "Lease", true),
      builtin("policy", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true,
              {"pdb"}, {"status"}),
      builtin("batch", "jobs", "job", "Job", true, {}, {"status"}, {"all"}),
      builtin("scheduling.k8s.io", "priorityclasses", "priorityclass", "PriorityClass", false,
              {"pc"}),
      // Stored as plain objects so fitscale's own install manifests (deploy/manifests) can be
      // applied and dry-run against the virtual cluster (tests/e2e/test_deploy.py).
      builtin("", "configmaps", "configmap", "ConfigMap", true, {"cm"}),
      builtin("", "secrets", "secret", "Secret", true),
      // Stored as written (no provisioner): the scheduler reads a bound claim's volume zone.
      builtin("", "persistentvolumes", "persistentvolume", "PersistentVolume", false, {"pv"},
              {"status"}),
      builtin("", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true,
              {"pvc"}, {"status"}),
      // What a ProvisioningRequest's podSets refer to (Kueue writes one per pod set).
      builtin("", "podtemplates", "podtemplate", "PodTemplate", true),
      builtin("", "services", "service", "Service", true, {"svc"}, {}, {"all"}),
      builtin("", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"}),
      builtin("apps", "deployments", "deployment", "Deployment", true, {"deploy"}, {}, {"all"}),
      builtin(rbac, "clusterroles", "clusterrole", "ClusterRole", false),
      builtin(rbac, "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false),
      builtin(rbac, "roles", "role", "Role", true),
      builtin(rbac, "rolebindings", "rolebinding", "RoleBinding", true),
      builtin("apiextensions.k8s.io", "customresourcedefinitions", "customresourcedefinition",
              "CustomResourceDefinition", false, {"crd", "crds"}, {"status"}, {"api-extensions"}),
      builtin(webhooks, "mutatingwebhookconfigurations", "mutatingwebhookconfiguration",
              "MutatingWebhookConfiguration", false, {}, {}, {"api-extensions"}),
      builtin(webhooks, "validatingwebhookconfigurations", "validatingwebhookconfiguration",
              "ValidatingWebhookConfiguration", false, {}, {}, {"api-extensions"}),
  };
  // `kubectl scale deployment` (kubectl scales deployments, replica sets, replication
  // controllers and stateful sets; only Deployments are served): replicas where apps/v1 keeps
  // them, the selector serialized from spec.selector.
  for (auto& r : t) {
    if (r.plural != "deployments") continue;
    r.subresources.push_back("scale");
    r.scale = {".spec.replicas", ".status.replicas", ".spec.selector"};
  }
  // events.k8s.io/v1 Events are the core Events, converted (event_conversion.h).
  auto events = builtin("events.k8s.io", "events", "event", "Event", true, {"ev"});
  events.storage = "events";
  t.push_back(events);
  // Answered, never stored (access_review.h).
  auto review = builtin("authorization.k8s.io", "selfsubjectaccessreviews",
                        "selfsubjectaccessreview", "SelfSubjectAccessReview", false);
  review.verbs = {"create"};
  t.push_back(review);
  return t;
}

}  // namespace

bool ResourceInfo::has_subresource(std::string_view sub) const {
  for (const auto& s : subresources) {
    if (s == sub) return true;
  }
  return false;
}

const std::vector<ResourceInfo>& builtin_resources() {
  // Immutable table (no mutable state), built once.
  static const std::vector<ResourceInfo> kResources = make_builtins();
  return kResources;
}

const ResourceInfo* find_builtin(std::string_view group, std::string_view version,
                                 std::string_view plural) {
  for (const auto& r : builtin_resources()) {
    if (r.group == group && r.version == version && r.plural == plural) return &r;
  }
  return nullptr;
}

const ResourceInfo& resource_by_plural(std::string_view plural) {
  for (const auto& r : builtin_resources()) {
    if (r.plural == plural) return r;
  }
  throw std::out_of_range("no served resource " + std::string(plural));
}

const ResourceInfo* ResourceRegistry::find(std::string_view group, std::string_view version,
                                           std::string_view plural) const {
  if (const auto* r = find_builtin(group, version, plural)) return r;
  std::shared_lock lock(mu_);
  for (const auto& [name, versions] : custom_) {
    for (const auto& r : versions) {
      if (r->group == group && r->version == version && r->plural == plural) return r.get();
    }
  }
  return nullptr;
}

std::vector<const ResourceInfo*> ResourceRegistry::all() const {
  std::vector<const ResourceInfo*> out;
  std::shared_lock lock(mu_);
  out.reserve(builtin_resources().size() + custom_.size() * 2);
  for (const auto& r : builtin_resources()) out.push_back(&r);
  for (const auto& [name, versions] : custom_) {
    for (const auto& r : versions) out.push_back(r.get());
  }
  return out;
}

void ResourceRegistry::serve(const std::string& crd_name, std::vector<ResourceInfo> versions) {
  std::vector<std::shared_ptr<const ResourceInfo>> entries;
  entries.reserve(versions.size());
  for (auto& v : versions) entries.push_back(std::make_shared<const ResourceInfo>(std::move(v)));
  std::unique_lock lock(mu_);
  auto& slot = custom_[crd_name];
  for (auto& old : slot) retired_.push_back(std::move(old));
  slot = std::move(entries);
}

void ResourceRegistry::withdraw(const std::string& crd_name) {
  std::unique_lock lock(mu_);
  auto it = custom_.find(crd_name);
  if (it == custom_.end()) return;
  for (auto& old : it->second) retired_.push_back(std::move(old));
  custom_.erase(it);
}

}  // namespace fitscale::vcluster
