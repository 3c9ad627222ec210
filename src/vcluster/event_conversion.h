#pragma once
// events.k8s.io/v1 Events are stored as core v1 Events (one storage, as in kube-apiserver) and
// converted field by field on the way in and out: regarding <-> involvedObject, note <-> message,
// deprecatedSource/FirstTimestamp/LastTimestamp/Count <-> source/firstTimestamp/lastTimestamp/
// count, reportingController <-> reportingComponent.
#include <nlohmann/json.hpp>

namespace fitscale::vcluster {

nlohmann::json core_event_to_events_v1(nlohmann::json event);
nlohmann::json events_v1_to_core_event(nlohmann::json event);

}  // namespace fitscale::vcluster
