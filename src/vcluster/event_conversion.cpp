#include "vcluster/event_conversion.h"

#include <array>
#include <utility>

namespace fitscale::vcluster {
namespace {

// (events.k8s.io/v1 field, core v1 field); fields with one name in both are copied as they are.
constexpr std::array<std::pair<const char*, const char*>, 7> kRenamed = {{
    {"regarding", "involvedObject"},
    {"note", "message"},
    {"deprecatedSource", "source"},
    {"deprecatedFirstTimestamp", "firstTimestamp"},
    {"deprecatedLastTimestamp", "lastTimestamp"},
    {"deprecatedCount", "count"},
    {"reportingController", "reportingComponent"},
}};

nlohmann::json rename(nlohmann::json event, bool to_v1) {
  if (!event.is_object()) return event;
  for (const auto& [v1, core] : kRenamed) {
    const char* from = to_v1 ? core : v1;
    const char* to = to_v1 ? v1 : core;
    auto it = event.find(from);
    if (it == event.end()) continue;
    nlohmann::json value = std::move(*it);
    event.erase(from);
    event[to] = std::move(value);
  }
  return event;
}

}  // namespace

nlohmann::json core_event_to_events_v1(nlohmann::json event) {
  event = rename(std::move(event), true);
  event["apiVersion"] = "events.k8s.io/v1";
  event["kind"] = "Event";
  return event;
}

nlohmann::json events_v1_to_core_event(nlohmann::json event) {
  event = rename(std::move(event), false);
  event["apiVersion"] = "v1";
  event["kind"] = "Event";
  return event;
}

}  // namespace fitscale::vcluster
