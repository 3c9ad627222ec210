#pragma once
// Table output (Accept: application/json;as=Table;v=v1;g=meta.k8s.io), which `kubectl get`
// asks for and prints as it comes: the columns kube-apiserver's printers give pods, nodes, jobs,
// events and namespaces (priority 1 = shown only with `-o wide`); other kinds get its default
// table, Name and Created At.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/time.h"
#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {

// True when the Accept header asks for a meta.k8s.io/v1 (or v1beta1) Table.
bool wants_table(std::string_view accept);

// kube's duration.HumanDuration: "45s", "5m30s", "3h", "2d5h", "1y20d".
std::string human_duration(Seconds s);

// `include_object`: the includeObject query value ("None", "Metadata" = default, "Object").
// `list_metadata` becomes the table's metadata (resourceVersion, continue).
nlohmann::json to_table(const ResourceInfo& r, const std::vector<nlohmann::json>& objects,
                        const nlohmann::json& list_metadata, Time now,
                        const std::string& include_object);

}  // namespace fitscale::vcluster
