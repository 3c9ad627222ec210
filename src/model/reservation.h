#pragma once
// Capacity bought ahead (docs/reserved-capacity.md): an EC2 On-Demand Capacity Reservation
// (ODCR) or a Capacity Block for ML. Either holds `instance_count` instances of one type in one
// zone; fitscale launches into it before spot and on-demand while it has room (capacity type
// `reserved`). A Capacity Block ends at `end`: EC2 takes its instances back then, so no job is
// placed there whose worst case outlives it. An ODCR may end too (EndDateType limited); one
// without an end is kept until cancelled.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/money.h"
#include "model/pool.h"
#include "model/time.h"

namespace fitscale {

enum class ReservationKind { CapacityReservation, CapacityBlock };
const char* to_string(ReservationKind k);             // "capacity-reservation", "capacity-block"
const char* ec2_reservation_type(ReservationKind k);  // EC2's reservationType: "default", ...

struct Reservation {
  std::string id;  // "cr-0123456789abcdef0"
  ReservationKind kind = ReservationKind::CapacityReservation;
  std::string instance_type;
  std::string zone;
  std::int64_t instance_count = 0;  // what it holds in all (TotalInstanceCount)
  std::optional<Time> end;          // when EC2 takes it back (EndDate); nullopt: never
  std::map<std::string, std::string> tags;
  // What a node in it costs on top of what was paid already, per hour: what budgets charge
  // and the ledger meters (0: paid ahead, running it costs nothing more).
  double usd_per_hour = 0;
  bool operator==(const Reservation&) const = default;
};

// How long before a reservation's end its nodes are drained and nothing new is placed there
// that would run past it: EC2 starts terminating a Capacity Block's instances 30 minutes before
// its end time (EC2 User Guide, "Capacity Blocks for ML").
inline constexpr Seconds kReservationEndMargin = 1800;  // 30 minutes

// Whether a job whose worst case is `worst_case` (nullopt: unbounded), started at `now`, ends
// before the reservation's end margin. Always true for a reservation without an end.
bool fits_before_end(const Reservation& r, std::optional<Seconds> worst_case, Time now);

// Whether one of the terms selects the reservation: by its id, or by every tag of the term
// ("*" = any value), as Karpenter's capacityReservationSelectorTerms.
bool selects(const std::vector<AwsSelectorTerm>& terms, const Reservation& r);

// The label a node launched into a reservation carries, so the room left in it can be counted
// from the cluster's nodes.
namespace label {
inline constexpr std::string_view kCapacityReservationId = "fitscale.io/capacity-reservation-id";
// EC2's reservationType: "default" (an ODCR) or "capacity-block"; how it is launched into.
inline constexpr std::string_view kCapacityReservationType =
    "fitscale.io/capacity-reservation-type";
}  // namespace label

}  // namespace fitscale
