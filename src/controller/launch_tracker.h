#pragma once
// Keeps each launch's Launch record current from what the controller does and sees: a launch,
// its Node registering and becoming Ready, its removal by fitscale or its instance going away.
// Hands every change to a LaunchLog (which queues it); the decisions are launch_lifecycle.h's.
// After a restart or a change of leader it adopts the instances it finds, so their objects
// (created by an earlier term) stay current.
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "controller/interfaces.h"
#include "controller/launch_lifecycle.h"
#include "planner/plan.h"

namespace fitscale {

class LaunchTracker {
 public:
  LaunchTracker(LaunchLog& log, std::string provider) : log_(log), provider_(std::move(provider)) {}

  // Before acting: the snapshot's nodes and the cloud's listing of this loop.
  void observe(const std::vector<Node>& nodes, const std::vector<Instance>& instances, Time now);
  // `instances` were launched for `d`; its pods are split among them in order.
  void launched(const LaunchDecision& d, const std::string& pool,
                const std::vector<Instance>& instances, Time now);
  // fitscale terminated the instance of `d`.
  void removed(const RemoveDecision& d, Time now);

  std::size_t tracked() const { return by_instance_.size(); }

 private:
  struct Tracked {
    LaunchRecord record;
    bool listed_before = false;
    bool interruption_notice = false;
  };
  void track(const Instance& inst, LaunchRecord record, Time now);
  void update(Tracked& t, const LaunchObservation& seen, Time now);

  LaunchLog& log_;
  std::string provider_;
  std::unordered_map<std::string, Tracked> by_instance_;
  // Removed by fitscale and maybe still listed (shutting down): not adopted again.
  std::unordered_set<std::string> gone_;
};

}  // namespace fitscale
