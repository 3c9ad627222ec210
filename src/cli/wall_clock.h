#pragma once
// The real clocks, for the commands that run against the world (`run`, `cluster`): the system
// clock for timestamps, the steady clock for durations. Only cli/ reads them (DESIGN.md).
#include <chrono>

#include "controller/interfaces.h"

namespace fitscale::cli {

class WallClock final : public Clock {
 public:
  Time now() const override {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  double monotonic_seconds() const override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace fitscale::cli
