#include "model/taint.h"

#include "model/error.h"

namespace fitscale {

bool tolerates(const Toleration& t, const Taint& taint) {
  if (t.effect && *t.effect != taint.effect) return false;
  // An empty key with operator Exists tolerates every taint (of the given effect, if any).
  if (t.key.empty()) return t.exists;
  if (t.key != taint.key) return false;
  return t.exists || t.value == taint.value;
}

const Taint* first_untolerated(const std::vector<Toleration>& tolerations,
                               const std::vector<Taint>& taints) {
  for (const Taint& taint : taints) {
    // PreferNoSchedule is a preference of the scheduler, never a reason a pod cannot land.
    if (taint.effect == TaintEffect::PreferNoSchedule) continue;
    bool ok = false;
    for (const Toleration& t : tolerations) {
      if (tolerates(t, taint)) {
        ok = true;
        break;
      }
    }
    if (!ok) return &taint;
  }
  return nullptr;
}

bool tolerates_all(const std::vector<Toleration>& tolerations, const std::vector<Taint>& taints) {
  return first_untolerated(tolerations, taints) == nullptr;
}

TaintEffect parse_taint_effect(const std::string& s) {
  if (s == "NoSchedule") return TaintEffect::NoSchedule;
  if (s == "PreferNoSchedule") return TaintEffect::PreferNoSchedule;
  if (s == "NoExecute") return TaintEffect::NoExecute;
  throw InputError("bad taint effect \"" + s +
                   "\": expected NoSchedule, PreferNoSchedule or NoExecute");
}

const char* to_string(TaintEffect e) {
  switch (e) {
    case TaintEffect::NoSchedule:
      return "NoSchedule";
    case TaintEffect::PreferNoSchedule:
      return "PreferNoSchedule";
    case TaintEffect::NoExecute:
      return "NoExecute";
  }
  return "NoSchedule";
}

}  // namespace fitscale
