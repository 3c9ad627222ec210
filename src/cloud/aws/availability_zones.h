#pragma once
// The configured zones checked against the region's own list (DescribeAvailabilityZones), so a
// typo such as "us-east-1z" stops `fitscale run --provider aws` at start instead of being
// planned on and failing every launch.
#include <pugixml.hpp>
#include <string>
#include <vector>

namespace fitscale::aws {

// zoneName of every item of a DescribeAvailabilityZones response.
std::vector<std::string> parse_availability_zones(const pugi::xml_node& response);

// Throws InputError "SOURCE: zones[i]: ..." for the first configured zone the region does not
// list, naming the zones it does.
void check_zones_exist(const std::vector<std::string>& configured,
                       const std::vector<std::string>& region_zones, const std::string& region,
                       const std::string& source);

}  // namespace fitscale::aws
