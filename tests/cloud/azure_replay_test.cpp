// The Azure provider against a loopback server that answers with Microsoft's published REST API
// examples (tests/data/azure/, from Azure/azure-rest-api-specs; README there) and checks each
// request: launch (token, 429, CreateOrUpdate, operation polling), listing after a restart,
// capacity errors, termination. Proven against published examples, not against a live Azure
// (docs/azure.md says what that leaves unproven).
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <deque>
#include <fstream>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cloud/aws/curl_transport.h"
#include "cloud/azure/arm_client.h"
#include "cloud/azure/arm_error.h"
#include "cloud/azure/azure_provider.h"
#include "cloud/azure/azure_vm.h"
#include "cloud/azure/client_secret_credential.h"
#include "cloud/common/encoding.h"
#include "cloud/common/node_name.h"
#include "loopback_server.h"
#include "model/base64.h"

namespace fitscale::azure {
namespace {

using nlohmann::json;

constexpr Time kNow = 1'780'000'000;
constexpr const char* kSub = "00000000-1111-2222-3333-444444444444";

json example(const std::string& file) {
  std::ifstream in(std::string(FITSCALE_SOURCE_DIR) + "/tests/data/azure/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

class FixedClock final : public Clock {
 public:
  Time now() const override { return kNow; }
};

class RecordingSleeper final : public aws::Sleeper {
 public:
  void sleep_ms(long ms) override { slept.push_back(ms); }
  std::vector<long> slept;
};

// The loopback server with Entra ID's token endpoint in front of the test's handler.
class ArmStub {
 public:
  using Handler = replay::LoopbackServer::Handler;
  ArmStub() {
    server_.handle = [this](const httplib::Request& req, httplib::Response& res) {
      if (req.method == "POST" && req.path.find("/oauth2/v2.0/token") != std::string::npos) {
        ++tokens;
        token_form = req.body;
        res.set_content(R"({"token_type":"Bearer","expires_in":3599,"access_token":"stub-token"})",
                        "application/json");
        return;
      }
      handle(req, res);
    };
  }
  std::string url() const { return server_.url(); }
  std::vector<replay::SeenRequest> seen() { return server_.seen(); }
  std::vector<replay::SeenRequest> seen(const std::string& method) { return server_.seen(method); }
  Handler handle = [](const httplib::Request&, httplib::Response& res) { res.status = 404; };
  int tokens = 0;
  std::string token_form;

 private:
  replay::LoopbackServer server_;
};

struct World {
  World() : credential(token_options(), transport, clock) {
    ArmClientOptions o;
    o.endpoint = stub.url();
    arm = std::make_unique<ArmClient>(o, transport, credential, sleeper);
    provider = std::make_unique<AzureProvider>(provider_options(), *arm, clock);
  }
  ClientSecretOptions token_options() const {
    ClientSecretOptions t;
    t.login_endpoint = stub.url();
    t.tenant_id = "tenant-1";
    t.client_id = "app-1";
    t.client_secret = "s3cret&=";
    return t;
  }
  static AzureProviderOptions provider_options() {
    AzureProviderOptions p;
    p.subscription_id = kSub;
    p.resource_group = "fitscale-rg";
    p.vm.cluster_name = "research";
    p.vm.location = "eastus";
    p.vm.subnet_id =
        "/subscriptions/x/resourceGroups/net/providers/Microsoft.Network/"
        "virtualNetworks/vnet/subnets/nodes";
    p.vm.image = "Canonical:0001-com-ubuntu-server-jammy:22_04-lts-gen2:latest";
    return p;
  }
  std::string vms_path() const { return provider->vms_path(); }
  ArmStub stub;
  FixedClock clock;
  aws::CurlTransport transport;
  RecordingSleeper sleeper;
  ClientSecretCredential credential;
  std::unique_ptr<ArmClient> arm;
  std::unique_ptr<AzureProvider> provider;
};

LaunchRequest spot_request(int count = 1) {
  LaunchRequest r;
  r.instance_type = "Standard_D4s_v5";
  r.zone = "eastus-2";
  r.capacity_type = CapacityType::Spot;
  r.count = count;
  r.pool = "default";
  r.owner_namespace = "team-a";
  r.job = "team-a/train";
  r.client_token = "research-1780000000-1";
  r.price_micros_per_hour = 40'000;
  r.provider = "azure";
  return r;
}

// The published CreateOrUpdate answer (201) for the VM the request named, with its tags.
json created_answer(const json& request_body, const std::string& name, const std::string& path) {
  json vm = example(
      "VirtualMachine_Create_WithNetworkInterfaceConfiguration.json")["responses"]["201"]["body"];
  vm["name"] = name;
  vm["id"] = path;
  vm["location"] = request_body["location"];
  vm["tags"] = request_body["tags"];
  if (request_body.contains("zones")) vm["zones"] = request_body["zones"];
  vm["properties"]["hardwareProfile"]["vmSize"] =
      request_body["properties"]["hardwareProfile"]["vmSize"];
  vm["properties"]["priority"] = request_body["properties"]["priority"];
  return vm;
}

TEST(AzureReplay, LaunchCreatesASpotVmThatIsDeletedOnEvictionAndWaitsOutThrottlingAndItsOperation) {
  World w;
  int puts = 0;
  int polls = 0;
  const std::string op = "/subscriptions/" + std::string(kSub) +
                         "/providers/Microsoft.Compute/locations/eastus/operations/op-1";
  w.stub.handle = [&](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "PUT") {
      if (++puts == 1) {  // throttled first: ARM's 429 with Retry-After and the remaining count
        res.status = 429;
        res.set_header("Retry-After", "3");
        res.set_header("x-ms-ratelimit-remaining-subscription-writes", "0");
        res.set_content(R"({"error":{"code":"TooManyRequests","message":"throttled"}})",
                        "application/json");
        return;
      }
      const json body = json::parse(req.body);
      res.status = 201;
      res.set_header("Azure-AsyncOperation", w.stub.url() + op + "?api-version=2024-03-01");
      res.set_header("Retry-After", "2");
      res.set_header("x-ms-ratelimit-remaining-subscription-writes", "1199");
      const std::string name = req.path.substr(req.path.rfind('/') + 1);
      res.set_content(created_answer(body, name, req.path).dump(), "application/json");
      return;
    }
    if (req.method == "GET" && req.path == op) {
      res.set_header("Retry-After", "1");
      res.set_content(++polls == 1 ? R"({"status":"InProgress"})" : R"({"status":"Succeeded"})",
                      "application/json");
      return;
    }
    res.status = 404;
  };

  const LaunchResult r = w.provider->launch(spot_request());
  ASSERT_TRUE(r.failures.empty()) << r.failures[0].code << " " << r.failures[0].message;
  ASSERT_EQ(r.launched.size(), 1u);
  const Instance& inst = r.launched[0];
  EXPECT_EQ(inst.id, cloud::launch_node_name("research", "research-1780000000-1", 0));
  EXPECT_EQ(inst.zone, "eastus-2");
  EXPECT_EQ(inst.capacity_type, CapacityType::Spot);
  EXPECT_EQ(inst.provider_id, "azure://" + w.vms_path() + "/" + inst.id);

  // The token: client credentials for the ARM scope, asked for once.
  EXPECT_EQ(w.stub.tokens, 1);
  EXPECT_NE(w.stub.token_form.find("grant_type=client_credentials"), std::string::npos);
  EXPECT_NE(w.stub.token_form.find("client_secret=s3cret%26%3D"), std::string::npos);
  EXPECT_NE(w.stub.token_form.find("scope=https%3A%2F%2Fmanagement.azure.com%2F.default"),
            std::string::npos);

  // The body: Spot, evicted by deletion, never for price, in zone 2, tagged for the cluster, the
  // NIC and disk deleted with it.
  const auto puts_seen = w.stub.seen("PUT");
  ASSERT_EQ(puts_seen.size(), 2u);
  EXPECT_EQ(puts_seen[1].authorization, "Bearer stub-token");
  EXPECT_NE(puts_seen[1].path.find("api-version=2024-03-01"), std::string::npos);
  const json body = json::parse(puts_seen[1].body);
  EXPECT_EQ(body["properties"]["priority"], "Spot");
  EXPECT_EQ(body["properties"]["evictionPolicy"], "Delete");
  EXPECT_EQ(body["properties"]["billingProfile"]["maxPrice"], -1);
  EXPECT_EQ(body["zones"], json::array({"2"}));
  EXPECT_EQ(body["location"], "eastus");
  EXPECT_EQ(body["tags"][kTagCluster], "research");
  EXPECT_EQ(body["tags"][kTagPrice], "40000");
  EXPECT_EQ(body["properties"]["hardwareProfile"]["vmSize"], "Standard_D4s_v5");
  const json& nic = body["properties"]["networkProfile"]["networkInterfaceConfigurations"][0];
  EXPECT_EQ(nic["properties"]["deleteOption"], "Delete");
  EXPECT_EQ(body["properties"]["storageProfile"]["osDisk"]["deleteOption"], "Delete");
  // The same fields the published examples carry (the spot fields from the scale set example).
  const json published = example("VirtualMachine_Create_WithNetworkInterfaceConfiguration.json");
  for (const char* key : {"hardwareProfile", "storageProfile", "networkProfile", "osProfile"}) {
    EXPECT_TRUE(published["parameters"]["parameters"]["properties"].contains(key)) << key;
    EXPECT_TRUE(body["properties"].contains(key)) << key;
  }

  // Waited: 3 s for the 429, then the operation's Retry-After before each poll.
  EXPECT_EQ(w.sleeper.slept, (std::vector<long>{3000, 2000, 1000}));
  EXPECT_EQ(w.arm->throttled(), 1);
  EXPECT_EQ(polls, 2);
}

TEST(AzureReplay, ListingFindsTheClustersVmsByTagAfterARestartAcrossPages) {
  World w;
  const json request = vm_body(World::provider_options().vm, spot_request(), "research-vm-0", kNow);
  json ours = created_answer(request, "research-vm-0", w.vms_path() + "/research-vm-0");
  ours["properties"]["provisioningState"] = "Succeeded";
  // Page 1: the published VirtualMachines_List answer (VMs without fitscale's tags: someone
  // else's), and a nextLink; page 2: this cluster's VM.
  json page1 = example("VirtualMachine_List_MinimumSet_Gen.json")["responses"]["200"]["body"];
  page1["nextLink"] = w.stub.url() + w.vms_path() + "?api-version=2024-03-01&page=2";
  w.stub.handle = [&](const httplib::Request& req, httplib::Response& res) {
    if (req.method != "GET") return void(res.status = 405);
    if (req.has_param("page")) {
      res.set_content(json{{"value", json::array({ours})}}.dump(), "application/json");
    } else {
      res.set_content(page1.dump(), "application/json");
    }
  };
  // A provider that launched nothing (a new process) finds it by its tag.
  const auto listed = w.provider->list_instances();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].id, "research-vm-0");
  EXPECT_EQ(listed[0].state, "running");
  EXPECT_EQ(listed[0].zone, "eastus-2");
  EXPECT_EQ(listed[0].capacity_type, CapacityType::Spot);
  EXPECT_EQ(listed[0].price_micros_per_hour, 40'000);
  EXPECT_EQ(listed[0].launched_at, kNow);
  EXPECT_EQ(listed[0].owner_namespace, "team-a");
  EXPECT_EQ(listed[0].provider, "azure");
  EXPECT_EQ(w.stub.seen("GET").size(), 2u);
}

TEST(AzureReplay, CapacityAndQuotaErrorsBackTheOfferingOffOtherErrorsDoNot) {
  World w;
  std::string answer;
  long status = 409;
  w.stub.handle = [&](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "PUT") {
      res.status = static_cast<int>(status);
      res.set_content(answer, "application/json");
      return;
    }
    res.status = req.method == "DELETE" ? 204 : 404;
  };
  auto code_of = [&](const std::string& code, const std::string& message) {
    answer = json{{"error", {{"code", code}, {"message", message}}}}.dump();
    const LaunchResult r = w.provider->launch(spot_request(3));
    EXPECT_TRUE(r.launched.empty());
    EXPECT_EQ(r.failures.size(), 1u);
    return r.failures.at(0);
  };
  const LaunchFailure sku = code_of("SkuNotAvailable", "The requested size is not available");
  EXPECT_TRUE(sku.capacity_error);
  EXPECT_EQ(sku.code, "SkuNotAvailable");
  EXPECT_EQ(sku.count, 3);
  EXPECT_EQ(sku.offering_key, "Standard_D4s_v5/eastus-2/spot");
  EXPECT_TRUE(code_of("AllocationFailed", "Allocation failed").capacity_error);
  EXPECT_TRUE(code_of("OperationNotAllowed", "exceeding approved standardDSv5Family Cores quota")
                  .capacity_error);
  EXPECT_FALSE(code_of("InvalidParameter", "bad image").capacity_error);
  status = 400;
  EXPECT_FALSE(code_of("OperationNotAllowed", "not permitted").capacity_error);
}

TEST(AzureReplay, AnAllocationThatFailsInItsOperationBacksOffAndDeletesTheFailedVm) {
  World w;
  const std::string op =
      "/subscriptions/s/providers/Microsoft.Compute/locations/eastus/operations/op-9";
  w.stub.handle = [&](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "PUT") {
      res.status = 201;
      res.set_header("Azure-AsyncOperation", w.stub.url() + op);
      const std::string name = req.path.substr(req.path.rfind('/') + 1);
      res.set_content(created_answer(json::parse(req.body), name, req.path).dump(),
                      "application/json");
      return;
    }
    if (req.method == "GET" && req.path == op) {
      res.set_content(
          R"({"status":"Failed","error":{"code":"ZonalAllocationFailed","message":"Allocation failed. We do not have sufficient capacity for the requested VM size in this zone."}})",
          "application/json");
      return;
    }
    if (req.method == "DELETE") return void(res.status = 202);
    res.status = 404;
  };
  const LaunchResult r = w.provider->launch(spot_request());
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].code, "ZonalAllocationFailed");
  EXPECT_TRUE(r.failures[0].capacity_error);
  const auto deletes = w.stub.seen("DELETE");
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_NE(deletes[0].path.find(cloud::launch_node_name("research", "research-1780000000-1", 0)),
            std::string::npos);
  EXPECT_NE(deletes[0].path.find("forceDeletion=true"), std::string::npos);
}

TEST(AzureReplay, TerminateForceDeletesAndDoesNotWaitForTheOperation) {
  World w;
  // The published VirtualMachines_Delete answer: 202 with a Location to poll.
  const json published = example("VirtualMachine_Delete_Force.json");
  w.stub.handle = [&](const httplib::Request& req, httplib::Response& res) {
    if (req.method != "DELETE") return void(res.status = 405);
    if (req.path.find("gone-vm") != std::string::npos) {
      res.status = 404;
      res.set_content(R"({"error":{"code":"ResourceNotFound","message":"not found"}})",
                      "application/json");
      return;
    }
    res.status = 202;
    res.set_header("Location",
                   published["responses"]["202"]["headers"]["Location"].get<std::string>());
  };
  w.provider->terminate({"research-vm-0", "gone-vm"});
  const auto deletes = w.stub.seen("DELETE");
  ASSERT_EQ(deletes.size(), 2u);
  EXPECT_NE(deletes[0].path.find(w.vms_path() + "/research-vm-0"), std::string::npos);
  EXPECT_NE(deletes[0].path.find("forceDeletion=true"), std::string::npos);
  EXPECT_EQ(w.stub.seen("GET").size(), 0u);  // not polled
}

TEST(AzureReplay, ThrottlingThatDoesNotEndFailsTheLaunchWithoutBackingOffTheOffering) {
  World w;
  w.stub.handle = [&](const httplib::Request&, httplib::Response& res) {
    res.status = 429;
    res.set_header("Retry-After", "1");
    res.set_content(R"({"error":{"code":"TooManyRequests","message":"slow down"}})",
                    "application/json");
  };
  const LaunchResult r = w.provider->launch(spot_request());
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].code, "TooManyRequests");
  EXPECT_FALSE(r.failures[0].capacity_error);
  EXPECT_EQ(w.arm->throttled(), 5);  // the first try and four retries
  EXPECT_THROW(w.provider->list_instances(), ArmError);
}

TEST(AzureVm, ZonesPricesAndNamesTranslateBothWays) {
  EXPECT_EQ(zone_number("eastus-3", "eastus"), "3");
  EXPECT_EQ(zone_number("eastus", "eastus"), std::nullopt);
  EXPECT_EQ(zone_number("westus-1", "eastus"), std::nullopt);
  LaunchRequest od = spot_request();
  od.capacity_type = CapacityType::OnDemand;
  od.zone = "eastus";
  const json body = vm_body(World::provider_options().vm, od, "n", kNow);
  EXPECT_EQ(body["properties"]["priority"], "Regular");
  EXPECT_FALSE(body["properties"].contains("evictionPolicy"));
  EXPECT_FALSE(body.contains("zones"));
  EXPECT_EQ(cloud::launch_node_name("c", "t", 0), cloud::launch_node_name("c", "t", 0));
  EXPECT_NE(cloud::launch_node_name("c", "t", 0), cloud::launch_node_name("c", "t2", 0));
  EXPECT_LE(cloud::launch_node_name(std::string(80, 'x'), "t", 999).size(), 64u);
  EXPECT_EQ(base64_encode("fitscale"), "Zml0c2NhbGU=");
  // A VM without the cluster's tag is not this cluster's.
  EXPECT_FALSE(instance_from_vm(
      example("VirtualMachine_List_MinimumSet_Gen.json")["responses"]["200"]["body"]["value"][0],
      "research"));
}

}  // namespace
}  // namespace fitscale::azure
