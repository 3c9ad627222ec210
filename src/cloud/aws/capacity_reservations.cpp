#include "cloud/aws/capacity_reservations.h"

#include <charconv>

#include "cloud/aws/ec2_instances.h"
#include "cloud/aws/query_client.h"

namespace fitscale::aws {

namespace {

// A count EC2 sends as decimal digits; nullopt when it is anything else or out of range.
std::optional<std::int64_t> count_of(const std::string& s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0 || v > 100'000)
    return std::nullopt;
  return v;
}

}  // namespace

NameValues describe_capacity_reservations_params(const std::vector<std::string>& ids,
                                                 const std::string& next_token) {
  NameValues p = {{"Filter.1.Name", "state"}, {"Filter.1.Value.1", "active"}};
  for (std::size_t i = 0; i < ids.size(); ++i)
    p.emplace_back("CapacityReservationId." + std::to_string(i + 1), ids[i]);
  // MaxResults cannot be combined with CapacityReservationId.N.
  if (ids.empty()) p.emplace_back("MaxResults", "500");
  if (!next_token.empty()) p.emplace_back("NextToken", next_token);
  return p;
}

std::string parse_describe_capacity_reservations(const pugi::xml_node& response,
                                                 std::vector<Reservation>& out) {
  for (auto item : response.child("capacityReservationSet").children("item")) {
    if (text(item, "state") != "active") continue;
    Reservation r;
    r.id = text(item, "capacityReservationId");
    r.instance_type = text(item, "instanceType");
    r.zone = text(item, "availabilityZone");
    const auto total = count_of(text(item, "totalInstanceCount"));
    if (r.id.empty() || r.instance_type.empty() || r.zone.empty() || !total || *total == 0)
      continue;
    r.instance_count = *total;
    r.kind = text(item, "reservationType") == "capacity-block"
                 ? ReservationKind::CapacityBlock
                 : ReservationKind::CapacityReservation;
    // A targeted ODCR takes only launches that name it; fitscale launches into open ones
    // (CapacityReservationOptions use-capacity-reservations-first), so a targeted one is left
    // out rather than planned and never filled.
    if (r.kind == ReservationKind::CapacityReservation &&
        text(item, "instanceMatchCriteria") == "targeted")
      continue;
    // endDateType unlimited: it runs until cancelled, whatever endDate says.
    const std::string end = text(item, "endDate");
    if (!end.empty() && text(item, "endDateType") != "unlimited") {
      const Time t = parse_aws_time(end);
      if (t > 0) r.end = t;
    }
    // A Capacity Block whose end cannot be read is not used: its jobs could outlive it.
    if (r.kind == ReservationKind::CapacityBlock && !r.end) continue;
    for (auto tag : item.child("tagSet").children("item"))
      r.tags[text(tag, "key")] = text(tag, "value");
    out.push_back(std::move(r));
  }
  return text(response, "nextToken");
}

}  // namespace fitscale::aws
