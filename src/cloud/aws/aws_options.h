#pragma once
// What the AWS provider needs to know, taken from the config file's `aws:` section.
#include <map>
#include <string>

#include "model/config.h"

namespace fitscale::aws {

// Tags fitscale puts on every instance it launches (and reads back after a restart).
inline constexpr const char* kTagCluster = "fitscale.io/cluster";
inline constexpr const char* kTagPool = "fitscale.io/pool";
inline constexpr const char* kTagJob = "fitscale.io/job";
inline constexpr const char* kTagNamespace = "fitscale.io/namespace";
// On an Auto Scaling group (mode asg): what it launches, when the launch template cannot say.
inline constexpr const char* kTagInstanceType = "fitscale.io/instance-type";
inline constexpr const char* kTagCapacityType = "fitscale.io/capacity-type";
// Written on an instance when an interruption notice for it arrives, so the notice outlives the
// queue message and a restart of fitscale (value: "<kind>,<event time>").
inline constexpr const char* kTagInterruption = "fitscale.io/interruption-notice";

struct AwsProviderOptions {
  std::string cluster_name = "fitscale";
  std::string region = "us-east-1";
  AwsMode mode = AwsMode::Fleet;
  LaunchTemplateRef launch_template;           // mode fleet: what every instance boots from
  std::map<std::string, std::string> subnets;  // zone -> subnet id
  // mode asg: groups carrying this tag with the cluster name as value are fitscale's.
  std::string asg_tag = kTagCluster;
  // false (dry run): interruption notices are only remembered, never tagged on the instance nor
  // deleted from the queue.
  bool consume_interruptions = true;
  // Pool labels and taints go into a launch template version's user data for nodeadm
  // (node_launch_template.h); false: the launch template is used as it is.
  bool nodeadm_bootstrap = true;
};

AwsProviderOptions provider_options(const Config& config);

}  // namespace fitscale::aws
