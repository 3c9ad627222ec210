#pragma once
// Compact hand-written OpenAPI schemas of the built-in kinds the virtual cluster serves, after
// the Kubernetes API reference (field names, types and one-line descriptions; facts, not code).
// Enough for `kubectl explain` and for reporting unknown fields as kube-apiserver's strict field
// validation does; status and deep sub-objects (probes, affinity, volumes, security contexts)
// are open objects that accept any field.
#include <nlohmann/json.hpp>
#include <string>

namespace fitscale::vcluster {

// components.schemas of an OpenAPI v3 document: "io.k8s.api.core.v1.Pod" -> schema, with
// $refs of the form "#/components/schemas/NAME" and x-kubernetes-group-version-kind on the kinds.
const nlohmann::json& openapi_component_schemas();

// The component name of a kind ("io.k8s.api.core.v1.Pod"); empty when no schema is written
// for it (such kinds are served with an open schema and are not validated).
std::string schema_name_of(const std::string& group, const std::string& version,
                           const std::string& kind);

}  // namespace fitscale::vcluster
