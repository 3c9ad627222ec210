#pragma once
// Discovery documents (/api, /api/v1, /apis, /apis/GROUP/VERSION, /version) built from the
// resource registry, so an established CustomResourceDefinition shows up in them at once. Served
// as plain application/json, so kubectl falls back from aggregated discovery to these legacy
// documents.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {

nlohmann::json core_api_versions(const std::string& server_address);  // /api
nlohmann::json api_group_list(const ResourceRegistry& registry);      // /apis
// /api/v1 (group "") or /apis/GROUP/VERSION; nullopt when not served.
std::optional<nlohmann::json> api_resource_list(const ResourceRegistry& registry,
                                                const std::string& group,
                                                const std::string& version);
std::optional<nlohmann::json> api_group(const ResourceRegistry& registry,
                                        const std::string& group);  // /apis/GROUP
nlohmann::json version_info();                                      // /version

// Kubernetes version priority: v1 before v1beta2 before v1beta1 before v1alpha1, GA before
// beta before alpha, then anything else alphabetically. True when `a` comes first.
bool version_precedes(std::string_view a, std::string_view b);

}  // namespace fitscale::vcluster
