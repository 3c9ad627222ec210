#include "controller/launch_lifecycle.h"

#include <algorithm>

#include "model/money.h"

namespace fitscale {
namespace {

LaunchCondition* find(LaunchStatus& s, const std::string& type) {
  auto it = std::find_if(s.conditions.begin(), s.conditions.end(),
                         [&](const LaunchCondition& c) { return c.type == type; });
  return it == s.conditions.end() ? nullptr : &*it;
}

const LaunchCondition* find(const LaunchStatus& s, const std::string& type) {
  auto it = std::find_if(s.conditions.begin(), s.conditions.end(),
                         [&](const LaunchCondition& c) { return c.type == type; });
  return it == s.conditions.end() ? nullptr : &*it;
}

// Sets a condition; its transition time moves only when its status does.
void set(LaunchStatus& s, const std::string& type, const std::string& status,
         const std::string& reason, const std::string& message, Time now) {
  LaunchCondition* c = find(s, type);
  if (c == nullptr) {
    s.conditions.push_back({type, status, reason, message, now});
    return;
  }
  if (c->status != status) c->last_transition = now;
  c->status = status;
  c->reason = reason;
  c->message = message;
}

const char* removed_reason(RemoveReason r) {
  switch (r) {
    case RemoveReason::Empty:
      return "Empty";
    case RemoveReason::NeverRegistered:
      return "NeverRegistered";
    case RemoveReason::Interrupted:
      return "SpotInterrupted";
    case RemoveReason::NotReady:
      return "NotReady";
  }
  return "Removed";
}

}  // namespace

std::string launch_object_name(const std::string& instance_id) {
  std::string name;
  name.reserve(instance_id.size());
  for (char c : instance_id) {
    const char l = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    name += ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '.' || l == '-') ? l : '-';
  }
  while (!name.empty() && (name.front() == '-' || name.front() == '.')) name.erase(0, 1);
  while (!name.empty() && (name.back() == '-' || name.back() == '.')) name.pop_back();
  if (name.size() > 253) name.resize(253);
  return name.empty() ? "launch" : name;
}

LaunchStatus launched_status(const Instance& inst, Time now) {
  LaunchStatus s;
  s.provider_id = inst.provider_id;
  set(s, "Launched", "True", "Launched",
      "instance " + inst.id + " launched: " + inst.instance_type + " in " + inst.zone + " (" +
          to_string(inst.capacity_type) + ") at " + format_usd_micros(inst.price_micros_per_hour) +
          "/h",
      now);
  set(s, "Registered", "False", "AwaitingNode", "the instance's Node has not registered yet", now);
  set(s, "Initialized", "False", "AwaitingNode", "the instance's Node has not registered yet", now);
  return s;
}

const LaunchCondition* removed_condition(const LaunchStatus& s) {
  const LaunchCondition* c = find(s, "Removed");
  return c != nullptr && c->status == "True" ? c : nullptr;
}

LaunchStatus next_launch_status(const LaunchStatus& prev, const LaunchObservation& seen, Time now) {
  if (removed_condition(prev) != nullptr) return prev;  // terminal
  LaunchStatus s = prev;
  if (!seen.provider_id.empty()) s.provider_id = seen.provider_id;
  if (!seen.node_name.empty()) {
    s.node_name = seen.node_name;
    const LaunchCondition* reg = find(s, "Registered");
    if (reg == nullptr || reg->status != "True") {
      set(s, "Registered", "True", "NodeRegistered", "node " + seen.node_name + " registered", now);
    }
    const LaunchCondition* init = find(s, "Initialized");
    if (seen.node_ready && (init == nullptr || init->status != "True")) {
      set(s, "Initialized", "True", "NodeReady", "node " + seen.node_name + " is Ready", now);
    } else if (!seen.node_ready && (init == nullptr || init->status != "True")) {
      set(s, "Initialized", "False", "NodeNotReady", "node " + seen.node_name + " is not Ready yet",
          now);
    }
  }
  if (seen.removed) {
    set(s, "Removed", "True", removed_reason(*seen.removed),
        "fitscale removed it: " + seen.removed_message, now);
  } else if (!seen.listed && seen.listed_before) {
    if (seen.interruption_notice) {
      set(s, "Removed", "True", "SpotInterrupted",
          "the cloud reclaimed the spot instance after its interruption notice", now);
    } else {
      set(s, "Removed", "True", "InstanceTerminated",
          "the instance went away without fitscale (terminated by hand or by the cloud)", now);
    }
  }
  return s;
}

std::optional<Time> launch_expires_at(const LaunchStatus& s, Seconds retention) {
  const LaunchCondition* c = removed_condition(s);
  if (c == nullptr) return std::nullopt;
  return c->last_transition + retention;
}

LaunchStatus with_kept_transition_times(LaunchStatus desired, const LaunchStatus& existing) {
  for (auto& c : desired.conditions) {
    const LaunchCondition* was = find(existing, c.type);
    if (was != nullptr && was->status == c.status) c.last_transition = was->last_transition;
  }
  return desired;
}

}  // namespace fitscale
