#include "controller/loop_work.h"

namespace fitscale {

LoopWork loop_work(const LoopWake& w) {
  if (w.inputs_changed || w.plan_timer_due || w.budget_recheck_due || w.budget_window_began)
    return LoopWork::Plan;
  return w.overrun_due ? LoopWork::OverrunsOnly : LoopWork::Nothing;
}

}  // namespace fitscale
