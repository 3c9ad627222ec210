#include "cloud/aws/availability_zones.h"

#include <algorithm>

#include "model/error.h"

namespace fitscale::aws {

std::vector<std::string> parse_availability_zones(const pugi::xml_node& response) {
  std::vector<std::string> out;
  for (const auto& item : response.child("availabilityZoneInfo").children("item")) {
    std::string name = item.child_value("zoneName");
    if (!name.empty()) out.push_back(std::move(name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

void check_zones_exist(const std::vector<std::string>& configured,
                       const std::vector<std::string>& region_zones, const std::string& region,
                       const std::string& source) {
  for (std::size_t i = 0; i < configured.size(); ++i) {
    if (std::find(region_zones.begin(), region_zones.end(), configured[i]) != region_zones.end())
      continue;
    std::string known;
    for (const auto& z : region_zones) known += (known.empty() ? "" : ", ") + z;
    throw InputError(source + ": zones[" + std::to_string(i) + "]: \"" + configured[i] +
                     "\" is not an availability zone of " + region +
                     " (DescribeAvailabilityZones lists " + (known.empty() ? "none" : known) + ")");
  }
}

}  // namespace fitscale::aws
