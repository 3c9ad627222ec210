#pragma once
#include <optional>
#include <string>
#include <vector>

namespace fitscale {

enum class TaintEffect { NoSchedule, PreferNoSchedule, NoExecute };

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::NoSchedule;
  bool operator==(const Taint&) const = default;
};

struct Toleration {
  std::string key;      // empty with Exists = tolerates everything
  bool exists = false;  // operator Exists (else Equal)
  std::string value;
  std::optional<TaintEffect> effect;  // empty = all effects
  bool operator==(const Toleration&) const = default;
};

bool tolerates(const Toleration& t, const Taint& taint);
// True when every NoSchedule / NoExecute taint is tolerated (PreferNoSchedule never blocks).
bool tolerates_all(const std::vector<Toleration>& tolerations, const std::vector<Taint>& taints);
// First taint that blocks, for reasons; nullptr when none.
const Taint* first_untolerated(const std::vector<Toleration>& tolerations,
                               const std::vector<Taint>& taints);

TaintEffect parse_taint_effect(const std::string& s);  // throws InputError
const char* to_string(TaintEffect e);

}  // namespace fitscale
