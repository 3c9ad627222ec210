#pragma once
// Auto Scaling group mode (the kubernetes-ec2-autoscaler layout): the user's groups, found by
// tag, each launching one instance type; fitscale only moves DesiredCapacity within min/max and
// removes chosen instances with TerminateInstanceInAutoScalingGroup.
#include <algorithm>
#include <cstdint>
#include <map>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "cloud/aws/sigv4.h"
#include "model/pod.h"

namespace fitscale::aws {

struct AsgMember {
  std::string id;
  std::string instance_type;
  std::string zone;
  std::string lifecycle_state;  // "Pending", "InService", "Terminating", ...
};

struct AutoScalingGroup {
  std::string name;
  int min_size = 0;
  int max_size = 0;
  int desired = 0;
  std::vector<std::string> zones;
  std::vector<AsgMember> members;
  std::map<std::string, std::string> tags;
  std::string launch_template_id, launch_template_name, launch_template_version;
  std::string instance_type;  // resolved: tag, launch template, or a member's
  CapacityType capacity_type = CapacityType::OnDemand;

  bool in_zone(const std::string& zone) const;
  // The desired capacity after adding `count`, never above max.
  // In 64 bits: the sizes come from the API and may be anything an int holds.
  int grown_desired(int count) const {
    return static_cast<int>(std::min<std::int64_t>(max_size, std::int64_t{desired} + count));
  }
};

NameValues describe_groups_params(const std::string& tag_key);
// Groups of one DescribeAutoScalingGroups page whose `tag_key` tag equals `tag_value`.
void parse_groups(const pugi::xml_node& response, const std::string& tag_key,
                  const std::string& tag_value, std::vector<AutoScalingGroup>& out);

// A member still counts as capacity unless it is leaving.
bool member_is_live(const AsgMember& m);

}  // namespace fitscale::aws
