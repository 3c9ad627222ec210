#pragma once
// DescribeCapacityReservations (EC2 Query API) -> the reservations fitscale launches into first
// (model/reservation.h, docs/reserved-capacity.md): On-Demand Capacity Reservations and Capacity
// Blocks for ML. Pure: parameters out, answer pages in.
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "cloud/aws/sigv4.h"
#include "model/reservation.h"

namespace fitscale::aws {

// The request's parameters: reservations in state active (a Capacity Block that has not begun
// is `scheduled` and takes no instance yet), of `ids` when given; pages of 500.
NameValues describe_capacity_reservations_params(const std::vector<std::string>& ids,
                                                 const std::string& next_token = "");

// Appends one answer page's reservations to `out` and returns its nextToken ("" on the last).
// An item without an id, type, zone or a positive instance count is left out (EC2 never sends
// one; a reader never trusts that). Only `active` ones are kept, and of the ODCRs only `open`
// ones (fitscale launches with use-capacity-reservations-first, which fills open ones only). A
// reservation's marginal price is 0 (paid ahead); the config may say otherwise
// (docs/reserved-capacity.md).
std::string parse_describe_capacity_reservations(const pugi::xml_node& response,
                                                 std::vector<Reservation>& out);

}  // namespace fitscale::aws
