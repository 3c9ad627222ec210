#include "model/reservation.h"

#include <algorithm>

namespace fitscale {

const char* to_string(ReservationKind k) {
  return k == ReservationKind::CapacityBlock ? "capacity-block" : "capacity-reservation";
}

const char* ec2_reservation_type(ReservationKind k) {
  return k == ReservationKind::CapacityBlock ? "capacity-block" : "default";
}

bool fits_before_end(const Reservation& r, std::optional<Seconds> worst_case, Time now) {
  if (!r.end) return true;
  if (!worst_case) return false;
  return now + *worst_case <= *r.end - kReservationEndMargin;
}

bool selects(const std::vector<AwsSelectorTerm>& terms, const Reservation& r) {
  return std::any_of(terms.begin(), terms.end(), [&](const AwsSelectorTerm& t) {
    if (!t.id.empty()) return t.id == r.id;
    if (t.tags.empty()) return false;
    return std::all_of(t.tags.begin(), t.tags.end(), [&](const auto& kv) {
      auto it = r.tags.find(kv.first);
      return it != r.tags.end() && (kv.second == "*" || kv.second == it->second);
    });
  });
}

}  // namespace fitscale
