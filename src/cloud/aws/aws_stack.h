#pragma once
// Everything a live AwsProvider needs, built and owned together: the libcurl transport, the
// EC2 and Auto Scaling clients (same keys, same endpoint override), the jitter RNG and the
// provider. What `fitscale run --provider aws` and `fitscale cluster --ec2-endpoint` construct.
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "cloud/aws/aws_provider.h"
#include "cloud/aws/curl_transport.h"
#include "cloud/aws/query_client.h"
#include "model/config.h"

namespace fitscale::aws {

struct AwsStackOptions {
  AwsProviderOptions provider;
  std::string endpoint;  // "" = the public endpoints of the region; one URL serves both APIs (moto)
  std::uint64_t jitter_seed = 0;  // seeds the backoff jitter (pass a random_device draw)
  RetryPolicy retry;
  std::string interruption_queue;  // SQS queue URL; "" = no interruption notices from a queue
};

// From the config file: cluster name, region, mode, template, subnets, asgTag, aws.endpoint,
// aws.interruptionQueue.
AwsStackOptions stack_options(const Config& config);

class AwsStack {
 public:
  // `catalog` (may be null) prices listed instances; it must outlive the stack.
  AwsStack(Credentials credentials, const AwsStackOptions& options, const Clock& clock,
           const Catalog* catalog);
  // `credentials` from resolve_credential_chain: refreshed as they near expiry.
  AwsStack(std::shared_ptr<CredentialSource> credentials, const AwsStackOptions& options,
           const Clock& clock, const Catalog* catalog);
  AwsProvider& provider() { return provider_; }
  QueryClient& ec2() { return ec2_; }
  QueryClient& autoscaling() { return autoscaling_; }
  InterruptionQueue* interruptions() { return interruptions_.get(); }
  // Where the keys come from ("environment", "web identity (ROLE_ARN)", ...): for the start log.
  std::string credentials_source() const { return credentials_->describe(); }

 private:
  std::shared_ptr<CredentialSource> credentials_;
  CurlTransport http_;
  ThreadSleeper sleeper_;
  std::mt19937_64 rng_;
  QueryClient ec2_;
  QueryClient autoscaling_;
  std::unique_ptr<QueryClient> sqs_;
  std::unique_ptr<InterruptionQueue> interruptions_;
  AwsProvider provider_;
};

}  // namespace fitscale::aws
