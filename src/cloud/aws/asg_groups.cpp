#include "cloud/aws/asg_groups.h"

#include <algorithm>

#include "cloud/aws/aws_options.h"
#include "cloud/aws/query_client.h"

namespace fitscale::aws {

bool AutoScalingGroup::in_zone(const std::string& zone) const {
  return std::find(zones.begin(), zones.end(), zone) != zones.end();
}

NameValues describe_groups_params(const std::string& tag_key) {
  return {{"Filters.member.1.Name", "tag-key"},
          {"Filters.member.1.Values.member.1", tag_key},
          {"MaxRecords", "100"}};
}

bool member_is_live(const AsgMember& m) {
  return m.lifecycle_state.rfind("Terminat", 0) != 0 && m.lifecycle_state != "Detached" &&
         m.lifecycle_state.rfind("Detaching", 0) != 0;
}

void parse_groups(const pugi::xml_node& response, const std::string& tag_key,
                  const std::string& tag_value, std::vector<AutoScalingGroup>& out) {
  auto groups = response.child("DescribeAutoScalingGroupsResult").child("AutoScalingGroups");
  for (auto g : groups.children("member")) {
    AutoScalingGroup a;
    a.name = text(g, "AutoScalingGroupName");
    a.min_size = g.child("MinSize").text().as_int();
    a.max_size = g.child("MaxSize").text().as_int();
    a.desired = g.child("DesiredCapacity").text().as_int();
    for (auto z : g.child("AvailabilityZones").children("member"))
      a.zones.push_back(z.text().get());
    for (auto t : g.child("Tags").children("member")) a.tags[text(t, "Key")] = text(t, "Value");
    for (auto m : g.child("Instances").children("member")) {
      a.members.push_back({text(m, "InstanceId"), text(m, "InstanceType"),
                           text(m, "AvailabilityZone"), text(m, "LifecycleState")});
    }
    auto lt = g.child("LaunchTemplate");
    a.launch_template_id = text(lt, "LaunchTemplateId");
    a.launch_template_name = text(lt, "LaunchTemplateName");
    a.launch_template_version = text(lt, "Version");
    if (auto t = a.tags.find(kTagInstanceType); t != a.tags.end()) a.instance_type = t->second;
    if (a.instance_type.empty()) {
      for (const auto& m : a.members) {
        if (!m.instance_type.empty()) a.instance_type = m.instance_type;
      }
    }
    if (auto t = a.tags.find(kTagCapacityType); t != a.tags.end() && t->second == "spot") {
      a.capacity_type = CapacityType::Spot;
    }
    auto mark = a.tags.find(tag_key);
    if (mark != a.tags.end() && mark->second == tag_value) out.push_back(std::move(a));
  }
}

}  // namespace fitscale::aws
