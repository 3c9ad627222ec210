#pragma once
// Discovery documents (/api, /api/v1, /apis, /apis/GROUP/VERSION, /version) built from the
// resource table. Served as plain application/json, so kubectl falls back from aggregated
// discovery to these legacy documents.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace fitscale::vcluster {

nlohmann::json core_api_versions(const std::string& server_address);  // /api
nlohmann::json api_group_list();                                      // /apis
// /api/v1 (group "") or /apis/GROUP/VERSION; nullopt when not served.
std::optional<nlohmann::json> api_resource_list(const std::string& group,
                                                const std::string& version);
std::optional<nlohmann::json> api_group(const std::string& group);  // /apis/GROUP
nlohmann::json version_info();                                      // /version

}  // namespace fitscale::vcluster
