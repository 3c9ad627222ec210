#pragma once
// The protobuf field numbers of the built-in kinds kubectl creates with its typed client (which
// sends Kubernetes protobuf): Namespace, ConfigMap, ServiceAccount, Deployment, Job,
// PodDisruptionBudget, Secret, Service, PriorityClass, Role, ClusterRole, RoleBinding and
// ClusterRoleBinding, with the parts of PodSpec and Container that `kubectl create` and common
// manifests fill. Field numbers are those of k8s.io/api's generated.proto files (a fact of the
// wire format). A field not in a schema is skipped, like an unknown field in any protobuf reader.
#include <nlohmann/json.hpp>
#include <string_view>

namespace fitscale::vcluster {

// The object encoded in `raw` (runtime.Unknown's raw bytes) as JSON, or nullopt-like null when
// `kind` has no schema here. Throws ApiError 400 for malformed bytes.
nlohmann::json decode_protobuf_object(std::string_view kind, std::string_view raw);

}  // namespace fitscale::vcluster
