#include "cloud/aws/aws_stack.h"

namespace fitscale::aws {

AwsStackOptions stack_options(const Config& config) {
  AwsStackOptions o;
  o.provider = provider_options(config);
  o.endpoint = config.aws.endpoint;
  return o;
}

AwsStack::AwsStack(Credentials credentials, AwsStackOptions options, const Clock& clock,
                   const Catalog* catalog)
    : rng_(options.jitter_seed),
      ec2_(
          http_, credentials, ec2_service(options.provider.region, options.endpoint), clock,
          sleeper_, [this] { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); },
          options.retry),
      autoscaling_(
          http_, credentials, autoscaling_service(options.provider.region, options.endpoint), clock,
          sleeper_, [this] { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); },
          options.retry),
      provider_(ec2_, &autoscaling_, catalog, clock, options.provider) {}

}  // namespace fitscale::aws
