#pragma once
// One node launch as fitscale reports it: the Launch object (launches.fitscale.io, NodeClaim-like,
// docs/pools.md "Launch objects") — what was launched, for whom, and its lifecycle as conditions.
#include <cstdint>
#include <string>
#include <vector>

#include "model/money.h"
#include "model/pod.h"
#include "model/time.h"

namespace fitscale {

struct LaunchCondition {
  std::string type;    // "Launched", "Registered", "Initialized", "Removed"
  std::string status;  // "True", "False", "Unknown"
  std::string reason;  // CamelCase: "Launched", "NodeReady", "Empty", "SpotInterrupted" ...
  std::string message;
  Time last_transition = 0;  // changes only when status does
  bool operator==(const LaunchCondition&) const = default;
};

struct LaunchStatus {
  std::string node_name;
  std::string provider_id;
  std::vector<LaunchCondition>
      conditions;  // in the order Launched, Registered, Initialized, Removed
  bool operator==(const LaunchStatus&) const = default;
};

struct LaunchRecord {
  std::string name;  // the object's name, from the instance id
  std::string instance_id;
  std::string pool;
  std::string provider;  // "sim", "aws"
  std::string instance_type;
  std::string zone;
  CapacityType capacity_type = CapacityType::Spot;
  Micros price_micros_per_hour = 0;
  std::string job_namespace;
  std::string job_name;
  std::vector<std::string>
      pods;  // "ns/name", at most kLaunchPodsListed (controller/launch_lifecycle.h)
  std::int64_t pod_count = 0;  // all the pods it was launched for
  LaunchStatus status;
  bool operator==(const LaunchRecord&) const = default;
};

}  // namespace fitscale
