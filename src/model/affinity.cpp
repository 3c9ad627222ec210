#include "model/affinity.h"

namespace fitscale {

const char* to_string(WhenUnsatisfiable w) {
  return w == WhenUnsatisfiable::DoNotSchedule ? "DoNotSchedule" : "ScheduleAnyway";
}

}  // namespace fitscale
