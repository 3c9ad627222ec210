// The controller's side of maxRuntimeAction (issue 12): what RuntimeWatch finds is said once
// per job and period (a Warning event on each of its pods, a log line, and through the
// recorders a budget alert), and with `terminate` its pods are deleted, as activeDeadlineSeconds
// would have the kubelet do.
#include "controller/controller.h"
#include "controller/runtime_watch.h"

namespace fitscale {

bool Controller::act_on_overruns(const Snapshot& snapshot, Time now) {
  if (!options_.policy.enforce_budgets) return true;
  const std::vector<Overrun> due = runtime_watch_->due(snapshot, options_.policy.budgets, now);
  const bool act = !options_.dry_run;
  bool all_done = true;
  for (const Overrun& o : due) {
    const bool terminate = o.action == MaxRuntimeAction::Terminate;
    const std::string text = overrun_text(o);
    if (o.new_in_period) {
      ActionRecord rec{ActionKind::MaxRuntimeExceeded,
                       o.ns + "/" + o.job,
                       text,
                       {{"namespace", o.ns},
                        {"job", o.job},
                        {"action", to_string(o.action)},
                        {"pods", std::to_string(o.pods.size())},
                        {"runtime_s", std::to_string(o.runtime)},
                        {"ran_s", std::to_string(o.ran)},
                        {"period", std::to_string(o.period)}}};
      if (!act) rec.fields["dry_run"] = "true";
      recorder_.action(rec);
    }
    if (!act) continue;
    for (const std::string& key : o.pods) {
      const auto slash = key.find('/');
      const std::string ns = key.substr(0, slash);
      const std::string name = key.substr(slash + 1);
      if (o.new_in_period)
        record_event(ObjectRef{"Pod", ns, name, "", ""}, "Warning", "MaxRuntimeExceeded", text);
      if (terminate && !cluster_.delete_pod(ns, name)) all_done = false;
    }
  }
  return all_done;
}

}  // namespace fitscale
