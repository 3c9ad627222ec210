// The Compute Engine provider against a loopback server that answers with recorded and
// documented Compute v1 answers (tests/data/gcp/, sources in its README) and checks each request:
// bulkInsert with minCount and Spot/DELETE, the operation waited for, rate limits retried,
// capacity and quota errors backing the offering off, listing by label after a restart,
// preemption, termination. Proven against recorded and documented answers, not a live Compute
// Engine (docs/gcp.md says what that leaves unproven).
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cloud/aws/curl_transport.h"
#include "cloud/common/node_name.h"
#include "cloud/gcp/gce_client.h"
#include "cloud/gcp/gce_error.h"
#include "cloud/gcp/gce_instance.h"
#include "cloud/gcp/gcp_credentials.h"
#include "cloud/gcp/gcp_provider.h"
#include "loopback_server.h"

namespace fitscale::gcp {
namespace {

using nlohmann::json;

constexpr Time kNow = 1'780'000'000;
constexpr const char* kProject = "research-123";

std::string recorded_text(const std::string& file) {
  std::ifstream in(std::string(FITSCALE_SOURCE_DIR) + "/tests/data/gcp/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
json recorded(const std::string& file) { return json::parse(recorded_text(file)); }

class FixedClock final : public Clock {
 public:
  Time now() const override { return kNow; }
};

class RecordingSleeper final : public aws::Sleeper {
 public:
  void sleep_ms(long ms) override { slept.push_back(ms); }
  std::vector<long> slept;
};

constexpr const char* kTokenPath = "/computeMetadata/v1/instance/service-accounts/default/token";

// The loopback server with the metadata server's token endpoint in front of the test's handler.
struct World {
  World() : credential(server.url(), transport, clock) {
    server.handle = [this](const httplib::Request& req, httplib::Response& res) {
      if (req.path == kTokenPath) {
        ++tokens;
        if (req.get_header_value("Metadata-Flavor") != "Google") {
          res.status = 403;
          return;
        }
        res.set_content(R"({"access_token":"ya29.stub","expires_in":3599,"token_type":"Bearer"})",
                        "application/json");
        return;
      }
      handle(req, res);
    };
    GceClientOptions o;
    o.endpoint = server.url() + "/compute/v1";
    gce = std::make_unique<GceClient>(o, transport, credential, sleeper);
    GcpProviderOptions p;
    p.zones = {"us-central1-a", "us-central1-b", "us-central1-c"};
    p.instance.cluster_name = "research";
    p.instance.project = kProject;
    p.instance.source_image = "projects/debian-cloud/global/images/family/debian-12";
    p.instance.subnetwork = "regions/us-central1/subnetworks/nodes";
    provider = std::make_unique<GcpProvider>(p, *gce, clock);
  }
  std::string zone_path(const std::string& zone) const {
    return std::string("/compute/v1/projects/") + kProject + "/zones/" + zone;
  }
  replay::LoopbackServer server;
  replay::LoopbackServer::Handler handle = [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
  };
  int tokens = 0;
  FixedClock clock;
  aws::CurlTransport transport;
  RecordingSleeper sleeper;
  MetadataServerCredential credential;
  std::unique_ptr<GceClient> gce;
  std::unique_ptr<GcpProvider> provider;
};

LaunchRequest gang_request(int count) {
  LaunchRequest r;
  r.instance_type = "n2-standard-8";
  r.zone = "us-central1-a";
  r.capacity_type = CapacityType::Spot;
  r.count = count;
  r.pool = "default";
  r.owner_namespace = "team-a";
  r.job = "train.v2";
  r.client_token = "research-1780000000-1";
  r.price_micros_per_hour = 94'000;
  r.provider = "gcp";
  r.all_or_nothing = true;
  return r;
}

void answer(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "application/json");
}

TEST(GcpReplay, GangLaunchIsOneBulkInsertWithMinCountSpotDeleteAndWaitsOutRateLimitAndOperation) {
  World w;
  int inserts = 0;
  int waits = 0;
  const json running = recorded("bulkinsert_running.json");
  const std::string wait_path =
      w.zone_path("us-central1-a") + "/operations/" + running["name"].get<std::string>() + "/wait";
  w.handle = [&](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "POST" &&
        req.path == w.zone_path("us-central1-a") + "/instances/bulkInsert") {
      // Rate-limited first (the bulk API's 403 rateLimitExceeded), then accepted.
      if (++inserts == 1) return answer(res, 403, recorded_text("error_rate_limit.json"));
      return answer(res, 200, running.dump());
    }
    if (req.method == "POST" && req.path == wait_path) {
      // zoneOperations.wait returns still RUNNING once (its two minutes passed), then DONE.
      if (++waits == 1) return answer(res, 200, running.dump());
      return answer(res, 200, recorded_text("bulkinsert_done.json"));
    }
    res.status = 404;
  };

  const LaunchResult r = w.provider->launch(gang_request(3));
  ASSERT_TRUE(r.failures.empty()) << r.failures[0].code << " " << r.failures[0].message;
  ASSERT_EQ(r.launched.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const Instance& inst = r.launched[static_cast<std::size_t>(i)];
    EXPECT_EQ(inst.id, cloud::launch_node_name("research", "research-1780000000-1", i));
    EXPECT_EQ(inst.zone, "us-central1-a");
    EXPECT_EQ(inst.capacity_type, CapacityType::Spot);
    EXPECT_EQ(inst.state, "pending");
    EXPECT_EQ(inst.provider_id, "gce://research-123/us-central1-a/" + inst.id);
  }
  EXPECT_EQ(waits, 2);
  EXPECT_EQ(w.sleeper.slept, std::vector<long>{1000});  // one backoff for the rate limit
  EXPECT_EQ(w.gce->rate_limited(), 1);

  // The metadata server's token, asked for once, with Metadata-Flavor: Google.
  EXPECT_EQ(w.tokens, 1);
  const auto posts = w.server.seen("POST");
  ASSERT_EQ(posts.size(), 4u);  // bulkInsert twice, wait twice
  EXPECT_EQ(posts[0].authorization, "Bearer ya29.stub");
  // The same requestId on the retry: Compute Engine runs a request id once.
  EXPECT_EQ(posts[0].path, posts[1].path);
  EXPECT_NE(posts[0].path.find("requestId=" + request_id("research-1780000000-1")),
            std::string::npos);

  const json body = json::parse(posts[1].body);
  EXPECT_EQ(body["count"], 3);
  EXPECT_EQ(body["minCount"], 3);  // a gang: all or none
  ASSERT_EQ(body["perInstanceProperties"].size(), 3u);
  EXPECT_TRUE(body["perInstanceProperties"].contains(r.launched[2].id));
  const json& props = body["instanceProperties"];
  EXPECT_EQ(props["machineType"], "n2-standard-8");
  EXPECT_EQ(props["scheduling"]["provisioningModel"], "SPOT");
  EXPECT_EQ(props["scheduling"]["instanceTerminationAction"], "DELETE");
  EXPECT_EQ(props["labels"]["fitscale-cluster"], "research");
  EXPECT_EQ(props["labels"]["fitscale-job"], "train_v2");  // '.' is not allowed in label values
  EXPECT_EQ(props["labels"]["fitscale-price-micros"], "94000");
  EXPECT_EQ(props["disks"][0]["autoDelete"], true);
  EXPECT_EQ(props["networkInterfaces"][0]["subnetwork"], "regions/us-central1/subnetworks/nodes");
}

TEST(GcpReplay, ZonePoolExhaustedInTheOperationBacksOffTheOfferingAndLaunchesNoneOfTheGang) {
  World w;
  w.handle = [&](const httplib::Request& req, httplib::Response& res) {
    if (req.path.ends_with("/instances/bulkInsert"))
      return answer(res, 200, recorded_text("bulkinsert_done_pool_exhausted.json"));
    res.status = 404;
  };
  const LaunchResult r = w.provider->launch(gang_request(4));
  EXPECT_TRUE(r.launched.empty());
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].code, "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS");
  EXPECT_EQ(r.failures[0].count, 4);
  EXPECT_TRUE(r.failures[0].capacity_error);
  EXPECT_EQ(r.failures[0].offering_key, "n2-standard-8/us-central1-a/spot");
  EXPECT_TRUE(w.server.seen("GET").size() == 1u);  // the token only: nothing looked up
}

TEST(GcpReplay, QuotaAndStockoutBackTheOfferingOffOtherErrorsDoNot) {
  struct Case {
    int status;
    std::string body;
    std::string code;
    bool capacity;
  };
  const json autoscaler_op = recorded("operation_done_error_cluster_autoscaler.json");
  const std::vector<Case> cases = {
      {403, recorded_text("error_quota_exceeded.json"), "quotaExceeded", true},
      {503,
       R"({"error":{"code":503,"message":"no capacity","errors":[{"reason":"insufficientCapacity","domain":"global","message":"no capacity"}]}})",
       "insufficientCapacity", true},
      {400,
       R"({"error":{"code":400,"message":"Invalid value for field 'resource.machineType'","errors":[{"reason":"invalid","domain":"global","message":"Invalid value"}]}})",
       "invalid", false},
      // A DONE operation with an error that is not about capacity (recorded by cluster-autoscaler).
      {200, autoscaler_op.dump(), "CONDITION_NOT_MET", false},
  };
  for (const auto& c : cases) {
    World w;
    w.handle = [&](const httplib::Request& req, httplib::Response& res) {
      if (req.path.ends_with("/instances/bulkInsert")) return answer(res, c.status, c.body);
      res.status = 404;
    };
    const LaunchResult r = w.provider->launch(gang_request(2));
    EXPECT_TRUE(r.launched.empty()) << c.code;
    ASSERT_EQ(r.failures.size(), 1u) << c.code;
    EXPECT_EQ(r.failures[0].code, c.code);
    EXPECT_EQ(r.failures[0].capacity_error, c.capacity) << c.code;
    EXPECT_TRUE(w.sleeper.slept.empty()) << c.code << ": not retried";
  }
  // The operation codes the docs and autoscalers name as stockouts and quotas.
  for (const char* code :
       {"ZONE_RESOURCE_POOL_EXHAUSTED", "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS",
        "QUOTA_EXCEEDED", "REGION_RESOURCE_POOL_EXHAUSTED"})
    EXPECT_TRUE(is_capacity_error(GceError(0, code, ""))) << code;
  EXPECT_FALSE(is_capacity_error(GceError(0, "CONDITION_NOT_MET", "")));
}

TEST(GcpReplay, RateLimitsThatDoNotEndFailTheLaunchWithoutBackingOffTheOffering) {
  World w;
  w.handle = [&](const httplib::Request&, httplib::Response& res) {
    answer(
        res, 429,
        R"({"error":{"code":429,"message":"Too many requests","errors":[{"reason":"rateLimitExceeded","domain":"usageLimits","message":"Too many requests"}]}})");
  };
  const LaunchResult r = w.provider->launch(gang_request(2));
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].code, "rateLimitExceeded");
  EXPECT_FALSE(r.failures[0].capacity_error);
  EXPECT_EQ(w.sleeper.slept, (std::vector<long>{1000, 2000, 4000, 8000, 16000}));
}

TEST(GcpReplay, APartialLaunchOfSingleNodesKeepsWhatWasMadeAndReportsTheRestAsCapacity) {
  World w;
  LaunchRequest req = gang_request(3);
  req.all_or_nothing = false;
  json done = recorded("bulkinsert_done.json");
  done["instancesBulkInsertOperationMetadata"]["perLocationStatus"]["zones/us-central1-a"]
      ["createdVmCount"] = 2;
  const std::string missing = cloud::launch_node_name("research", req.client_token, 1);
  w.handle = [&](const httplib::Request& q, httplib::Response& res) {
    if (q.path.ends_with("/instances/bulkInsert")) return answer(res, 200, done.dump());
    if (q.method == "GET" && q.path.find("/instances/") != std::string::npos) {
      if (q.path.ends_with("/" + missing))
        return answer(res, 404, recorded_text("error_not_found.json"));
      return answer(res, 200, R"({"kind":"compute#instance","status":"PROVISIONING"})");
    }
    res.status = 404;
  };
  const LaunchResult r = w.provider->launch(req);
  const json body = json::parse(w.server.seen("POST")[0].body);
  EXPECT_EQ(body["minCount"], 1);  // not a gang: as many as the zone has
  ASSERT_EQ(r.launched.size(), 2u);
  for (const auto& i : r.launched) EXPECT_NE(i.id, missing);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].count, 1);
  EXPECT_TRUE(r.failures[0].capacity_error);
}

TEST(GcpReplay, ListingFindsTheClustersInstancesByLabelAfterARestartAndNoticesAPreemption) {
  World w;
  w.handle = [&](const httplib::Request& req, httplib::Response& res) {
    const std::string agg = std::string("/compute/v1/projects/") + kProject + "/aggregated/";
    if (req.path == agg + "instances") {
      return answer(res, 200,
                    recorded_text(req.get_param_value("pageToken") == "page-2"
                                      ? "aggregated_instances_page2.json"
                                      : "aggregated_instances.json"));
    }
    if (req.path == agg + "operations")
      return answer(res, 200, recorded_text("aggregated_operations_preempted.json"));
    if (req.method == "DELETE") return answer(res, 200, recorded_text("bulkinsert_running.json"));
    res.status = 404;
  };
  const std::vector<Instance> listed = w.provider->list_instances();
  ASSERT_EQ(listed.size(), 2u);  // not staging's, not europe-west4-a (another provider's zone)
  const Instance& spot = listed[0];
  EXPECT_EQ(spot.id, "research-5a1d3f0c9b-0");
  EXPECT_EQ(spot.instance_type, "n2-standard-8");
  EXPECT_EQ(spot.zone, "us-central1-a");
  EXPECT_EQ(spot.capacity_type, CapacityType::Spot);
  EXPECT_EQ(spot.state, "running");
  EXPECT_TRUE(spot.interruption_notice);  // its compute.instances.preempted operation
  EXPECT_EQ(spot.price_micros_per_hour, 94'000);
  EXPECT_EQ(spot.launched_at, 1'779'999'000);
  EXPECT_EQ(spot.owner_namespace, "team-a");
  EXPECT_EQ(spot.provider, "gcp");
  EXPECT_EQ(spot.provider_id, "gce://research-123/us-central1-a/research-5a1d3f0c9b-0");
  const Instance& gpu = listed[1];
  EXPECT_EQ(gpu.instance_type, "g2-standard-8");
  EXPECT_EQ(gpu.state, "pending");  // STAGING
  EXPECT_EQ(gpu.capacity_type, CapacityType::OnDemand);
  EXPECT_FALSE(gpu.interruption_notice);

  const auto gets = w.server.seen("GET");
  ASSERT_GE(gets.size(), 4u);  // token, two pages, the operations
  EXPECT_NE(gets[1].path.find("filter=labels.fitscale-cluster=research"), std::string::npos)
      << gets[1].path;
  EXPECT_NE(gets[3].path.find("operationType=\"compute.instances.preempted\""), std::string::npos)
      << gets[3].path;

  // After the listing the provider knows each instance's zone: one DELETE, to that zone.
  w.provider->terminate({"research-77c0e2a1b3-0"});
  const auto deletes = w.server.seen("DELETE");
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[0].path, w.zone_path("us-central1-c") + "/instances/research-77c0e2a1b3-0");
}

TEST(GcpReplay, TerminatingAnInstanceNotListedSinceARestartTriesEachZoneAndTakes404AsGone) {
  World w;
  w.handle = [&](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "DELETE" &&
        req.path == w.zone_path("us-central1-b") + "/instances/research-0123456789-0")
      return answer(res, 200, recorded_text("bulkinsert_running.json"));
    answer(res, 404, recorded_text("error_not_found.json"));
  };
  w.provider->terminate({"research-0123456789-0", "research-gone-0"});
  const auto deletes = w.server.seen("DELETE");
  // The first: a (404), b (deleted). The second: a, b, c, all 404: gone already, no error.
  ASSERT_EQ(deletes.size(), 5u);
  EXPECT_EQ(deletes[1].path, w.zone_path("us-central1-b") + "/instances/research-0123456789-0");
}

TEST(GceInstance, ATerminatedOrStoppingSpotInstanceIsAPreemptionAndLabelsAreSanitized) {
  json gce = recorded("aggregated_instances.json")["items"]["zones/us-central1-a"]["instances"][0];
  for (const char* status : {"STOPPING", "TERMINATED"}) {
    gce["status"] = status;
    const auto i = instance_from_gce(gce, "research");
    ASSERT_TRUE(i);
    EXPECT_EQ(i->state, "shutting-down") << status;
    EXPECT_TRUE(i->interruption_notice) << status;
  }
  EXPECT_FALSE(instance_from_gce(gce, "other"));
  EXPECT_EQ(label_value("Team.A/Train"), "team_a_train");
  EXPECT_LE(label_value(std::string(100, 'x')).size(), 63u);
  EXPECT_EQ(request_id("t").size(), 36u);
  EXPECT_EQ(request_id("t"), request_id("t"));
  EXPECT_NE(request_id("t"), request_id("t2"));
  EXPECT_EQ(last_segment("https://x/zones/us-central1-a"), "us-central1-a");
}

}  // namespace
}  // namespace fitscale::gcp
