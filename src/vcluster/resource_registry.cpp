#include "vcluster/resource_registry.h"

#include <stdexcept>

namespace fitscale::vcluster {

const std::vector<ResourceInfo>& served_resources() {
  // Immutable table (no mutable state), built once.
  static const std::vector<ResourceInfo> kResources = {
      {"", "v1", "namespaces", "namespace", "Namespace", false, {"ns"}, {"status"}},
      {"", "v1", "nodes", "node", "Node", false, {"no"}, {"status"}},
      {"", "v1", "pods", "pod", "Pod", true, {"po"}, {"status", "eviction", "binding", "log"}},
      {"", "v1", "events", "event", "Event", true, {"ev"}, {}},
      {"coordination.k8s.io", "v1", "leases", "lease", "Lease", true, {}, {}},
      {"policy",
       "v1",
       "poddisruptionbudgets",
       "poddisruptionbudget",
       "PodDisruptionBudget",
       true,
       {"pdb"},
       {"status"}},
      {"batch", "v1", "jobs", "job", "Job", true, {}, {"status"}},
      {"scheduling.k8s.io",
       "v1",
       "priorityclasses",
       "priorityclass",
       "PriorityClass",
       false,
       {"pc"},
       {}},
      // Stored as plain objects so fitscale's own install manifests (deploy/manifests) can be
      // applied and dry-run against the virtual cluster (tests/e2e/test_deploy.py).
      {"", "v1", "configmaps", "configmap", "ConfigMap", true, {"cm"}, {}},
      {"", "v1", "services", "service", "Service", true, {"svc"}, {}},
      {"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"}, {}},
      {"apps", "v1", "deployments", "deployment", "Deployment", true, {"deploy"}, {}},
      {"rbac.authorization.k8s.io",
       "v1",
       "clusterroles",
       "clusterrole",
       "ClusterRole",
       false,
       {},
       {}},
      {"rbac.authorization.k8s.io",
       "v1",
       "clusterrolebindings",
       "clusterrolebinding",
       "ClusterRoleBinding",
       false,
       {},
       {}},
      {"rbac.authorization.k8s.io", "v1", "roles", "role", "Role", true, {}, {}},
      {"rbac.authorization.k8s.io",
       "v1",
       "rolebindings",
       "rolebinding",
       "RoleBinding",
       true,
       {},
       {}},
  };
  return kResources;
}

const ResourceInfo* find_resource(std::string_view group, std::string_view version,
                                  std::string_view plural) {
  for (const auto& r : served_resources()) {
    if (r.group == group && r.version == version && r.plural == plural) return &r;
  }
  return nullptr;
}

const ResourceInfo& resource_by_plural(std::string_view plural) {
  for (const auto& r : served_resources()) {
    if (r.plural == plural) return r;
  }
  throw std::out_of_range("no served resource " + std::string(plural));
}

}  // namespace fitscale::vcluster
