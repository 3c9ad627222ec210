#pragma once
// Writes every controller action as one log line with its reason and fields: launches,
// removals and evictions at info; refusals, launch failures, interruptions, blocked evictions
// and unschedulable pods at warn. A pod that stays unschedulable for the same reason is logged
// once, not every loop. Loop timings go to debug.
#include <map>
#include <string>

#include "obs/logger.h"
#include "obs/recorder.h"

namespace fitscale::obs {

class LogRecorder final : public Recorder {
 public:
  explicit LogRecorder(const Logger& logger) : logger_(logger) {}

  void action(const ActionRecord& record) override;
  void planned(const Snapshot& snapshot, const Plan& plan, const LoopStats& stats) override;
  void loop_finished(const LoopStats& stats) override;

 private:
  const Logger& logger_;
  std::map<std::string, std::string> unschedulable_reason_;  // subject -> last reason logged
};

LogLevel level_of(ActionKind kind);

}  // namespace fitscale::obs
