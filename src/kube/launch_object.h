#pragma once
// The Launch custom resource (launches.fitscale.io/v1alpha1, deploy/crds/launches.fitscale.io.yaml)
// as JSON: the object fitscale creates for a launch, its status as the status subresource takes
// it, and the status read back from an object an earlier leader wrote.
#include <nlohmann/json.hpp>
#include <string>

#include "model/launch_record.h"

namespace fitscale {

inline constexpr const char* kLaunchesPath = "/apis/fitscale.io/v1alpha1/launches";

// The whole object (spec; status is written separately, the status subresource ignores it on
// create).
nlohmann::json launch_object(const LaunchRecord& r);
// {"status": ...}: a merge patch of the status subresource (conditions replaced whole).
nlohmann::json launch_status_patch(const LaunchStatus& s);
// The status of an object as the API server returned it. Fields it cannot read are left empty
// (an unreadable lastTransitionTime is 0): a bad object never stops the others.
LaunchStatus launch_status_from(const nlohmann::json& object);

}  // namespace fitscale
