#pragma once
// CreateFleet (type instant) for one offering the plan chose: the user's launch template with an
// override for the instance type and the zone's subnet, fitscale's tags on the instances, and the
// request's client token so a retried call never launches twice. Pure: parameters in, result out.
#include <pugixml.hpp>

#include "cloud/aws/aws_options.h"
#include "cloud/aws/sigv4.h"
#include "controller/interfaces.h"

namespace fitscale::aws {

std::string offering_key(const std::string& instance_type, const std::string& zone,
                         CapacityType capacity);
// AWS allows 64 ASCII characters; longer tokens are replaced by their SHA-256 (same in, same out).
std::string fleet_client_token(const std::string& token);
std::string provider_id(const std::string& zone, const std::string& instance_id);

// Throws InputError when no launch template is configured.
NameValues create_fleet_params(const LaunchRequest& request, const AwsProviderOptions& options);
// The same, booting from `launch_template` (e.g. the version node_launch_template.h made).
NameValues create_fleet_params(const LaunchRequest& request, const AwsProviderOptions& options,
                               const LaunchTemplateRef& launch_template);
// The template a request boots from: its pool's, else aws.launchTemplate. Throws InputError
// when neither is set.
LaunchTemplateRef launch_template_of(const LaunchRequest& request,
                                     const AwsProviderOptions& options);

// What came up (`launched`) and, for the rest, why (`failures`; capacity_error only for the
// capacity codes, see is_capacity_error). An all-or-nothing request answered in part launches
// nothing: the part is in `to_terminate`, for the caller to terminate at once.
struct FleetAnswer : LaunchResult {
  std::vector<std::string> to_terminate;
};
FleetAnswer parse_create_fleet(const pugi::xml_node& response, const LaunchRequest& request,
                               Time now);

}  // namespace fitscale::aws
