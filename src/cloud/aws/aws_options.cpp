#include "cloud/aws/aws_options.h"

namespace fitscale::aws {

AwsProviderOptions provider_options(const Config& config) {
  AwsProviderOptions o;
  o.cluster_name = config.cluster_name;
  o.region = config.aws.region.empty() ? config.region : config.aws.region;
  o.mode = config.aws.mode;
  o.launch_template = config.aws.launch_template;
  o.subnets = config.aws.subnets;
  o.nodeadm_bootstrap = config.aws.nodeadm_bootstrap;
  if (!config.aws.asg_tag.empty()) o.asg_tag = config.aws.asg_tag;
  return o;
}

}  // namespace fitscale::aws
