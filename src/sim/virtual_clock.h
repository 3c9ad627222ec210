#pragma once
// The simulator's clock: time moves only when the engine says so.
#include "controller/interfaces.h"

namespace fitscale {

class VirtualClock final : public Clock {
 public:
  explicit VirtualClock(Time start) : now_(start) {}
  Time now() const override { return now_; }
  void set(Time t) { now_ = t; }

 private:
  Time now_;
};

}  // namespace fitscale
