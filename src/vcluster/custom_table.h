#pragma once
// meta.k8s.io/v1 Table output for custom resources (kubectl get asks for it with
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`): a Name column, then the
// definition's additionalPrinterColumns (or Age when it declares none), each cell read with
// the column's JSONPath and rendered as kube-apiserver renders it (dates as ages).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/time.h"
#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {

// True when an Accept header asks for a meta.k8s.io/v1 Table.
bool wants_table(const std::string& accept);
// `include_object`: "None", "Object" or "Metadata" (the default; PartialObjectMetadata rows).
nlohmann::json custom_resource_table(const ResourceInfo& r,
                                     const std::vector<nlohmann::json>& items,
                                     const nlohmann::json& list_metadata,
                                     const std::string& include_object, Time now);
nlohmann::json custom_resource_table(const ResourceInfo& r, const nlohmann::json& items,
                                     const nlohmann::json& list_metadata,
                                     const std::string& include_object, Time now);

// The value a printer column's JSONPath selects in `obj` (the simple forms CRDs use:
// .a.b, .a[0].b, .a[?(@.type=="Ready")].status); null when nothing is there.
nlohmann::json json_path_value(const nlohmann::json& obj, const std::string& path);
// An age as kubectl prints it: 45s, 3m12s, 5h, 3d4h, 2y31d.
std::string human_duration(long long seconds);

}  // namespace fitscale::vcluster
