#pragma once
// The simulator's clock: time moves only when the engine says so. Its monotonic reading is the
// same virtual time, so a simulated loop takes no time at all and reports stay reproducible.
#include "controller/interfaces.h"

namespace fitscale {

class VirtualClock final : public Clock {
 public:
  explicit VirtualClock(Time start) : now_(start) {}
  Time now() const override { return now_; }
  double monotonic_seconds() const override { return static_cast<double>(now_); }
  void set(Time t) { now_ = t; }

 private:
  Time now_;
};

}  // namespace fitscale
