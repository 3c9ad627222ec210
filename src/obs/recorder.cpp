#include "obs/recorder.h"

namespace fitscale {

const char* to_string(ActionKind k) {
  switch (k) {
    case ActionKind::Launch:
      return "launch";
    case ActionKind::LaunchFailed:
      return "launch-failed";
    case ActionKind::Refuse:
      return "refuse";
    case ActionKind::Unschedulable:
      return "unschedulable";
    case ActionKind::Remove:
      return "remove";
    case ActionKind::Interrupted:
      return "interrupted";
    case ActionKind::Evict:
      return "evict";
    case ActionKind::EvictBlocked:
      return "evict-blocked";
    case ActionKind::Keep:
      return "keep";
    case ActionKind::MaxRuntimeExceeded:
      return "max-runtime-exceeded";
    case ActionKind::Ungate:
      return "ungate";
    case ActionKind::Reclaim:
      return "reclaim";
  }
  return "unknown";
}

}  // namespace fitscale
