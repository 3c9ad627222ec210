#include "planner/plan.h"

namespace fitscale {

const char* to_string(RemoveReason r) {
  switch (r) {
    case RemoveReason::Empty:
      return "empty";
    case RemoveReason::NeverRegistered:
      return "never-registered";
    case RemoveReason::Interrupted:
      return "interrupted";
    case RemoveReason::NotReady:
      return "not-ready";
  }
  return "unknown";
}

const char* to_string(UnschedulableKind k) {
  switch (k) {
    case UnschedulableKind::NoOffering:
      return "no-offering";
    case UnschedulableKind::BudgetWait:
      return "budget-wait";
    case UnschedulableKind::BudgetRefused:
      return "budget-refused";
    case UnschedulableKind::CapacityBackoff:
      return "capacity-backoff";
    case UnschedulableKind::GangIncomplete:
      return "gang-incomplete";
  }
  return "unknown";
}

}  // namespace fitscale
