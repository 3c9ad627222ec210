// The config keys of the AWS catalog and interruption queue: read strictly, errors name the key.
#include <gtest/gtest.h>

#include "cloud/aws/aws_options.h"
#include "cloud/aws/aws_stack.h"
#include "model/config.h"
#include "model/error.h"

namespace fitscale::aws {
namespace {

std::string error_of(const std::string& yaml) {
  try {
    parse_config(yaml, "c.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(AwsConfigKeys, CatalogRestrictionRefreshAndQueueAreRead) {
  auto c = parse_config(R"(
aws:
  catalog:
    instanceTypes: [g5.*, m5.large]
    spotPriceRefresh: 2m
  interruptionQueue: https://sqs.us-east-1.amazonaws.com/123456789012/fitscale
)",
                        "c.yaml");
  EXPECT_EQ(c.aws.catalog_instance_types, (std::vector<std::string>{"g5.*", "m5.large"}));
  EXPECT_EQ(c.aws.spot_price_refresh_s, 120);
  EXPECT_EQ(stack_options(c).interruption_queue,
            "https://sqs.us-east-1.amazonaws.com/123456789012/fitscale");
}

TEST(AwsConfigKeys, DefaultsAskForEverythingRefreshEveryTenMinutesAndReadNoQueue) {
  auto c = parse_config("", "c.yaml");
  EXPECT_TRUE(c.aws.catalog_instance_types.empty());
  EXPECT_EQ(c.aws.spot_price_refresh_s, 600);
  EXPECT_TRUE(stack_options(c).interruption_queue.empty());
  EXPECT_EQ(parse_config("aws:\n  catalog:\n    spotPriceRefresh: 0s\n", "c.yaml")
                .aws.spot_price_refresh_s,
            0);
}

TEST(AwsConfigKeys, MistakesNameTheKey) {
  EXPECT_NE(error_of("aws:\n  catalog:\n    instanceType: [g5.*]\n").find("aws.catalog"),
            std::string::npos);
  EXPECT_NE(
      error_of("aws:\n  catalog:\n    instanceTypes: g5.*\n").find("aws.catalog.instanceTypes"),
      std::string::npos);
  EXPECT_NE(error_of("aws:\n  catalog:\n    spotPriceRefresh: often\n")
                .find("aws.catalog.spotPriceRefresh"),
            std::string::npos);
  EXPECT_NE(error_of("aws:\n  interruptionQueue: fitscale-queue\n").find("aws.interruptionQueue"),
            std::string::npos);
}

TEST(AwsConfigKeys, NodeBootstrapIsNodeadmUnlessSaidNone) {
  EXPECT_TRUE(provider_options(parse_config("", "c.yaml")).nodeadm_bootstrap);
  EXPECT_FALSE(
      provider_options(parse_config("aws:\n  nodeBootstrap: none\n", "c.yaml")).nodeadm_bootstrap);
  EXPECT_NE(error_of("aws:\n  nodeBootstrap: bottlerocket\n")
                .find("aws.nodeBootstrap: must be one of nodeadm, none"),
            std::string::npos);
}

}  // namespace
}  // namespace fitscale::aws
