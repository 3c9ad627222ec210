#include "cloud/aws/aws_stack.h"

namespace fitscale::aws {

AwsStackOptions stack_options(const Config& config) {
  AwsStackOptions o;
  o.provider = provider_options(config);
  o.endpoint = config.aws.endpoint;
  o.interruption_queue = config.aws.interruption_queue;
  return o;
}

AwsStack::AwsStack(Credentials credentials, const AwsStackOptions& options, const Clock& clock,
                   const Catalog* catalog)
    : AwsStack(std::make_shared<StaticCredentials>(std::move(credentials)), options, clock,
               catalog) {}

AwsStack::AwsStack(std::shared_ptr<CredentialSource> credentials, const AwsStackOptions& options,
                   const Clock& clock, const Catalog* catalog)
    : credentials_(std::move(credentials)),
      rng_(options.jitter_seed),
      ec2_(
          http_, credentials_, ec2_service(options.provider.region, options.endpoint), clock,
          sleeper_, [this] { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); },
          options.retry),
      autoscaling_(
          http_, credentials_, autoscaling_service(options.provider.region, options.endpoint),
          clock, sleeper_,
          [this] { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); }, options.retry),
      sqs_(options.interruption_queue.empty()
               ? nullptr
               : std::make_unique<QueryClient>(
                     http_, credentials_,
                     sqs_service(options.interruption_queue, options.provider.region), clock,
                     sleeper_,
                     [this] { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); },
                     options.retry)),
      interruptions_(sqs_ ? std::make_unique<InterruptionQueue>(*sqs_, options.interruption_queue)
                          : nullptr),
      provider_(ec2_, &autoscaling_, catalog, clock, options.provider, interruptions_.get()) {}

}  // namespace fitscale::aws
