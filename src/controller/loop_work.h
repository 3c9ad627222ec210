#pragma once
// What a controller loop has to do, from what changed since the last plan (issue 18 item 3: a
// loop whose inputs did not change costs O(changes), not O(pending)).
//
// A plan is a pure function of the snapshot (pods, nodes, instances), the policy (budgets,
// offerings in back-off) and the time. Each of those reaches a loop as one of these wakes:
//   - the cluster's or the cloud's generation moved (a pod came, went, bound or changed; a node
//     registered, went or was cordoned; an instance launched, was interrupted or terminated),
//     or the controller forced a look (a failure, an unsynced view, new budgets: set_budgets);
//   - a planner timer is due: an empty node's TTL (and scaleDown.delayAfterLaunch), a launch's
//     register timeout, a not-ready
//     node, an offering's back-off expiring (all from Controller::next_timer);
//   - time-based limits: pods wait on a budget and either waiting_recheck_s passed (dollar caps
//     commit less as running work nears its worst case) or a UTC day began since the last plan
//     (daily and monthly spend windows reset).
// Anything else about time does not change a plan. In particular a running job reaching its
// worst case (maxRuntime) changes no input of the plan: it is told (alert) or its pods are
// deleted (terminate, which moves the cluster's generation, so the next loop plans). Long-running
// services past the default maxRuntime used to wake a full plan of every pending pod every loop.
namespace fitscale {

struct LoopWake {
  bool inputs_changed = false;  // generations moved, forced, or never observed
  bool plan_timer_due = false;
  bool budget_recheck_due = false;   // waiting_recheck_s passed while pods wait on a budget
  bool budget_window_began = false;  // a UTC day began since the last plan while pods wait
  bool overrun_due = false;          // a running job reaches its worst case
};

enum class LoopWork {
  Nothing,       // a quiet loop
  OverrunsOnly,  // tell (or terminate) jobs past their worst case; the last plan stands
  Plan,
};

LoopWork loop_work(const LoopWake& w);

}  // namespace fitscale
