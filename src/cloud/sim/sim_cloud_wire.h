#pragma once
// JSON wire format of the virtual cluster's /fitscale.io/sim-cloud/ endpoints, shared by the
// server (src/vcluster) and RemoteSimCloud. Field names are the C++ field names of
// Instance, LaunchRequest, LaunchResult and LaunchFailure; capacity_type is "spot"/"on-demand".
#include <nlohmann/json.hpp>

#include "controller/interfaces.h"

namespace fitscale {

nlohmann::json instance_to_json(const Instance& i);
Instance instance_from_json(const nlohmann::json& j);  // throws InputError naming the field
nlohmann::json launch_request_to_json(const LaunchRequest& r);
LaunchRequest launch_request_from_json(const nlohmann::json& j);
nlohmann::json launch_result_to_json(const LaunchResult& r);
LaunchResult launch_result_from_json(const nlohmann::json& j);
CapacityType capacity_type_from_string(const std::string& s);  // throws InputError

}  // namespace fitscale
