#include "model/config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "model/error.h"

namespace fitscale {
namespace {

// The error message a user would see for `yaml`, or "" when it parses.
std::string error_of(const std::string& yaml) {
  try {
    parse_config(yaml, "config.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Config, EmptyFileGivesDocumentedDefaultsAndSafeBudgets) {
  const Config c = parse_config("", "config.yaml");
  EXPECT_EQ(c.zones, (std::vector<std::string>{"us-east-1a", "us-east-1b", "us-east-1c"}));
  EXPECT_EQ(c.region, "us-east-1");
  EXPECT_EQ(c.pool, "default");
  EXPECT_EQ(c.cluster_name, "fitscale");
  EXPECT_EQ(c.controller.interval_s, 10);
  EXPECT_EQ(c.controller.offering_backoff_s, 300);
  EXPECT_EQ(c.scale_down.empty_after_s, 60);
  EXPECT_EQ(c.scale_down.register_timeout_s, 900);
  EXPECT_EQ(c.scale_down.not_ready_after_s, 1200)
      << "cluster-autoscaler's --scale-down-unready-time";
  EXPECT_EQ(c.allocatable.max_pods, 110);
  EXPECT_EQ(c.alerts.thresholds, (std::vector<int>{50, 80, 100}));
  EXPECT_EQ(c.simulator.boot_delay_gpu_s, 180);
  EXPECT_TRUE(c.simulator.interruptions);
  EXPECT_EQ(c.metrics.address, "127.0.0.1:8080");
  EXPECT_EQ(c.log_format, LogFormat::Text);
  EXPECT_FALSE(c.budgets.has_value());
  const Budgets b = budgets_or_defaults(c);
  EXPECT_EQ(b.cluster.gpus, safe_default_budgets().cluster.gpus);
  EXPECT_EQ(b.defaults.usd_per_job, safe_default_budgets().defaults.usd_per_job);
}

TEST(Config, ReadsTheIssueExampleBudgets) {
  const Config c = parse_config(R"(
budgets:
  cluster:   {usdPerHour: 2000, gpus: 1024, nodes: 2000}
  default:   {usdPerHour: 200, usdPerDay: 3000, usdPerMonth: 50000, usdPerJob: 2000, maxRuntime: 24h}
  namespaces:
    research-a: {usdPerHour: 500, usdPerMonth: 100000, usdPerJob: 20000, maxRuntime: 72h}
)",
                                "config.yaml");
  const Budgets b = budgets_or_defaults(c);
  EXPECT_EQ(b.cluster.usd_per_hour, 2000);
  EXPECT_EQ(b.cluster.gpus, 1024);
  EXPECT_EQ(b.cluster.nodes, 2000);
  const NamespaceBudget a = b.for_namespace("research-a");
  EXPECT_EQ(a.usd_per_hour, 500);
  EXPECT_EQ(a.usd_per_day, 3000);  // from default
  EXPECT_EQ(a.usd_per_job, 20000);
  EXPECT_EQ(a.max_runtime, 72 * 3600);
  EXPECT_EQ(b.for_namespace("other").max_runtime, 24 * 3600);
}

TEST(Config, BudgetsKeyPresentMeansOnlyWhatItSays) {
  // A file that sets only a namespace cap has no cluster caps: the safe defaults are not mixed in.
  const Budgets b = budgets_or_defaults(
      parse_config("budgets:\n  namespaces:\n    a: {usdPerDay: 10}\n", "c.yaml"));
  EXPECT_FALSE(b.cluster.gpus.has_value());
  EXPECT_FALSE(b.defaults.usd_per_job.has_value());
  EXPECT_EQ(b.for_namespace("a").usd_per_day, 10);
  // budgets: {} is an explicit "no caps".
  const Budgets none = budgets_or_defaults(parse_config("budgets: {}\n", "c.yaml"));
  EXPECT_FALSE(none.cluster.usd_per_hour.has_value());
}

TEST(Config, ReadsEverySection) {
  const Config c = parse_config(R"(
zones: [us-west-2a, us-west-2b]
region: us-west-2
pool: gpu
clusterName: lab
controller: {interval: 5s, offeringBackoff: 10m}
scaleDown: {emptyAfter: 2m, registerTimeout: 20m, notReadyAfter: 30m}
allocatable:
  maxPods: 58
  daemonsetOverhead: {cpu: 200m, memory: 256Mi}
alerts:
  webhook: http://127.0.0.1:9/hook
  thresholds: [90, 100]
simulator:
  bootDelayCpu: 60s
  bootDelayGpu: 4m
  interruptions: false
  insufficientCapacity:
    - {offering: p3.16xlarge/us-west-2a/spot, from: 0s, until: 1h}
aws:
  endpoint: http://127.0.0.1:5000
  mode: asg
  launchTemplate: {name: fitscale-nodes, version: 3}
  subnets: {us-west-2a: subnet-1, us-west-2b: subnet-2}
  asgTag: fitscale.io/pool
  credentialsProfile: lab
metrics: {address: "0.0.0.0:9090"}
logFormat: json
)",
                                "config.yaml");
  EXPECT_EQ(c.zones.size(), 2u);
  EXPECT_EQ(c.region, "us-west-2");
  EXPECT_EQ(c.cluster_name, "lab");
  EXPECT_EQ(c.controller.interval_s, 5);
  EXPECT_EQ(c.controller.offering_backoff_s, 600);
  EXPECT_EQ(c.scale_down.empty_after_s, 120);
  EXPECT_EQ(c.scale_down.not_ready_after_s, 1800);
  EXPECT_EQ(c.allocatable.max_pods, 58);
  EXPECT_EQ(c.allocatable.daemonset_overhead.cpu_milli, 200);
  EXPECT_EQ(c.allocatable.daemonset_overhead.memory_bytes, 256 * 1024 * 1024);
  EXPECT_EQ(c.alerts.webhook, "http://127.0.0.1:9/hook");
  EXPECT_EQ(c.alerts.thresholds, (std::vector<int>{90, 100}));
  EXPECT_EQ(c.simulator.boot_delay_gpu_s, 240);
  EXPECT_FALSE(c.simulator.interruptions);
  ASSERT_EQ(c.simulator.insufficient_capacity.size(), 1u);
  const CapacityOutage& o = c.simulator.insufficient_capacity[0];
  EXPECT_EQ(o.instance_type, "p3.16xlarge");
  EXPECT_EQ(o.zone, "us-west-2a");
  EXPECT_EQ(o.capacity_type, CapacityType::Spot);
  EXPECT_EQ(o.until_s, 3600);
  EXPECT_EQ(c.aws.mode, AwsMode::Asg);
  EXPECT_EQ(c.aws.launch_template.version, "3");
  EXPECT_EQ(c.aws.subnets.at("us-west-2b"), "subnet-2");
  EXPECT_EQ(c.metrics.address, "0.0.0.0:9090");
  EXPECT_EQ(c.log_format, LogFormat::Json);
}

TEST(Config, BadBudgetValueNamesFileLineAndKeyPath) {
  const std::string e =
      error_of("budgets:\n  namespaces:\n    research-a:\n      usdPerJob: lots\n");
  EXPECT_EQ(e,
            "config.yaml:4: budgets.namespaces.research-a.usdPerJob: must be a number >= 0, got "
            "\"lots\"");
}

TEST(Config, RefusesInvalidBudgets) {
  EXPECT_NE(error_of("budgets:\n  default: {usdPerDay: -5}\n")
                .find("budgets.default.usdPerDay: must be a number >= 0"),
            std::string::npos);
  EXPECT_NE(error_of("budgets:\n  cluster: {gpus: 1.5}\n")
                .find("budgets.cluster.gpus: must be a whole number"),
            std::string::npos);
  EXPECT_NE(error_of("budgets:\n  default: {maxRuntime: forever}\n")
                .find("budgets.default.maxRuntime: must be a duration"),
            std::string::npos);
  EXPECT_NE(error_of("budgets:\n  default: {maxRuntime: 0s}\n").find("budgets.default.maxRuntime"),
            std::string::npos);
  EXPECT_NE(error_of("budgets:\n  namespaces:\n    Research_A: {usdPerDay: 5}\n")
                .find("budgets.namespaces.Research_A: is not a Kubernetes namespace name"),
            std::string::npos);
  EXPECT_NE(error_of("budgets:\n  namespaces: [a, b]\n")
                .find("budgets.namespaces: must be a map, got a list"),
            std::string::npos);
  EXPECT_NE(error_of("budgets:\n").find("budgets: is empty"), std::string::npos);
}

TEST(Config, UnknownKeysAreErrorsWithASuggestion) {
  EXPECT_EQ(
      error_of("budgets:\n  default:\n    usdPerJobs: 5\n"),
      "config.yaml:3: budgets.default: unknown key \"usdPerJobs\"; did you mean \"usdPerJob\"?");
  EXPECT_EQ(
      error_of("budgets:\n  default:\n    usd_per_day: 5\n"),
      "config.yaml:3: budgets.default: unknown key \"usd_per_day\"; did you mean \"usdPerDay\"?");
  EXPECT_EQ(error_of("budget: {}\n"),
            "config.yaml:1: unknown key \"budget\"; did you mean \"budgets\"?");
  EXPECT_EQ(error_of("colour: blue\n"), "config.yaml:1: unknown key \"colour\"");
}

TEST(Config, OtherSectionsValidateToo) {
  EXPECT_NE(error_of("aws: {mode: spotfleet}\n")
                .find("aws.mode: must be one of fleet, asg, got \"spotfleet\""),
            std::string::npos);
  EXPECT_NE(error_of("logFormat: xml\n").find("logFormat: must be one of text, json"),
            std::string::npos);
  EXPECT_NE(error_of("alerts: {thresholds: [80, 50]}\n").find("alerts.thresholds[1]"),
            std::string::npos);
  EXPECT_NE(error_of("alerts: {webhook: slack}\n").find("alerts.webhook: must be an http"),
            std::string::npos);
  EXPECT_NE(
      error_of(
          "simulator:\n  insufficientCapacity:\n    - {offering: p3.2xlarge/us-east-1a/reserved}\n")
          .find("simulator.insufficientCapacity[0].offering: capacity must be spot or on-demand"),
      std::string::npos);
  EXPECT_NE(error_of("metrics: {address: localhost}\n").find("metrics.address: must be HOST:PORT"),
            std::string::npos);
  EXPECT_NE(error_of("zones: []\n").find("zones: must list at least one zone"), std::string::npos);
  EXPECT_NE(error_of("controller: {interval: 0s}\n").find("controller.interval"),
            std::string::npos);
  EXPECT_NE(error_of("allocatable: {daemonsetOverhead: {cpu: lots}}\n")
                .find("allocatable.daemonsetOverhead.cpu"),
            std::string::npos);
  EXPECT_NE(error_of("zones: [a\n").find("config.yaml:"), std::string::npos);  // not YAML
}

TEST(Config, LoadConfigFileNamesAMissingFile) {
  try {
    load_config_file("/nonexistent/fitscale.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/fitscale.yaml"), std::string::npos);
  }
}

TEST(Config, ShippedExampleParses) {
  const Config c = load_config_file(std::string(FITSCALE_SOURCE_DIR) + "/examples/config.yaml");
  EXPECT_TRUE(c.budgets.has_value());
}

}  // namespace
}  // namespace fitscale

namespace fitscale {
namespace {

// Issue 13: `zones: [us-west-2a]` and `region: eu-west-1` passed validate and then launched at
// us-east-1 prices. A zone must be in the region fitscale launches in; a region must have prices.
TEST(Config, AZoneMustBeInTheLaunchRegion) {
  const std::string wrong = error_of("region: us-east-1\nzones: [us-east-1a, us-west-2a]\n");
  EXPECT_NE(wrong.find("config.yaml:2: zones[1]: zone \"us-west-2a\" is not in region us-east-1"),
            std::string::npos)
      << wrong;
  const std::string aws = error_of("zones: [us-east-1a]\naws: {region: eu-west-1}\n");
  EXPECT_NE(aws.find("zones[0]: zone \"us-east-1a\" is not in aws.region eu-west-1"),
            std::string::npos)
      << aws;
  // The default zones are us-east-1's: another region must list its own.
  const std::string defaults = error_of("region: eu-west-1\n");
  EXPECT_NE(defaults.find("config.yaml:1: region: eu-west-1: the default zones"), std::string::npos)
      << defaults;
  EXPECT_NO_THROW(parse_config("region: us-west-2\nzones: [us-west-2a, us-west-2-lax-1a]\n", "c"));
  EXPECT_TRUE(zone_in_region("us-east-1z", "us-east-1"));  // exists or not: the EC2 API says
  EXPECT_FALSE(zone_in_region("us-east-11a", "us-east-1"));
  EXPECT_FALSE(zone_in_region("us-east-1", "us-east-1"));
}

TEST(Config, ARegionWithoutACatalogIsAnErrorNamingTheKey) {
  const Config eu = parse_config("region: eu-west-1\nzones: [eu-west-1a]\n", "c.yaml");
  try {
    require_catalog_for_region(eu, false);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("c.yaml: region: eu-west-1 has no price catalog"), std::string::npos) << m;
    EXPECT_NE(m.find("--catalog"), std::string::npos) << m;
  }
  EXPECT_NO_THROW(require_catalog_for_region(eu, true));
  EXPECT_NO_THROW(require_catalog_for_region(Config{}, false));
  const Config aws =
      parse_config("region: eu-west-1\nzones: [us-east-1a]\naws: {region: us-east-1}\n", "c.yaml");
  EXPECT_NO_THROW(require_catalog_for_region(aws, false));
}

}  // namespace
}  // namespace fitscale
