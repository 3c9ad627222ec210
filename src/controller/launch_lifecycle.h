#pragma once
// Which conditions a Launch object carries when (docs/pools.md, "Launch objects"): pure
// decisions from what the controller saw of one launch, kept apart from how they are written
// (kube/launch_writer.h) so the lifecycle is tested without an API server.
//
//   Launched     True from the launch on.
//   Registered   False until the instance's Node registers, then True for good.
//   Initialized  False until that Node is Ready, then True for good.
//   Removed      absent until the launch ends, then True with why: Empty, NeverRegistered,
//                NotReady, SpotInterrupted (fitscale removed it), or SpotInterrupted /
//                InstanceTerminated (the instance went away without fitscale). Terminal.
#include <cstddef>
#include <optional>
#include <string>

#include "controller/interfaces.h"
#include "model/launch_record.h"
#include "planner/plan.h"

namespace fitscale {

// A Launch lists at most this many of its pods (pod_count has them all): a 10,000-pod job on
// 500 nodes must not make 500 objects of 10,000 names each.
constexpr std::size_t kLaunchPodsListed = 100;
// Removed Launch objects are deleted this long after they were removed, so they do not pile up.
constexpr Seconds kRemovedLaunchRetention = 3600;

// What the controller saw of one launch in one loop.
struct LaunchObservation {
  // The cloud lists the instance (not shutting down or terminated). A launch the cloud never
  // listed yet (EC2 lists new instances a little later) is not gone.
  bool listed = true;
  bool listed_before = false;
  bool interruption_notice = false;  // seen on the instance or its Node, this loop or before
  std::string node_name;             // its registered Node; empty: none (yet)
  std::string provider_id;
  bool node_ready = false;
  // fitscale removed it this loop, and why.
  std::optional<RemoveReason> removed;
  std::string removed_message;
};

// The object name of the launch of `instance_id`: a DNS subdomain (lower case; characters
// outside [a-z0-9.-] become '-').
std::string launch_object_name(const std::string& instance_id);

// The status of a launch that just happened.
LaunchStatus launched_status(const Instance& inst, Time now);

// The status after `seen`; equal to `prev` when nothing changed (nothing to write).
LaunchStatus next_launch_status(const LaunchStatus& prev, const LaunchObservation& seen, Time now);

// The Removed condition, when the launch has ended.
const LaunchCondition* removed_condition(const LaunchStatus& s);

// When a removed launch's object is to be deleted; nullopt while it is not removed.
std::optional<Time> launch_expires_at(const LaunchStatus& s, Seconds retention);

// `desired` with the lastTransitionTime of each condition whose status `existing` already had
// (what an object written by an earlier leader says): a transition time moves only when the
// status does, not because a new leader looked again.
LaunchStatus with_kept_transition_times(LaunchStatus desired, const LaunchStatus& existing);

}  // namespace fitscale
