#pragma once
// moto_server for the AWS tests: started once per test process on a free 127.0.0.1 port, with an
// IAM user (keys + policy), a subnet in us-east-1a and us-east-1b and launch templates made
// before signature checking is switched on; then every request must be signed with the user's keys.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <pugixml.hpp>
#include <sstream>
#include <thread>

#include "aws_fake_transport.h"
#include "cloud/aws/api_catalog.h"
#include "cloud/aws/aws_provider.h"
#include "cloud/aws/curl_transport.h"

namespace fitscale::aws {

class WallClock final : public Clock {
 public:
  Time now() const override {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

inline int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// Answers CreateFleet for one instance type the way EC2 does when it has no capacity (or the
// account is at a quota: `code`): HTTP 200, no instances, an errorSet item. Everything else goes
// to moto.
class CapacityFaults final : public HttpTransport {
 public:
  explicit CapacityFaults(HttpTransport& next) : next_(next) {}
  std::string no_capacity_type;
  std::string code = "InsufficientInstanceCapacity";
  int faults = 0;
  std::vector<std::string> create_fleet_bodies;  // every CreateFleet sent, as sent
  // CreateFleet answers with one instance fewer than moto launched and an
  // InsufficientInstanceCapacity error: a partial answer, as EC2 gives one without
  // MinTargetCapacity (the request itself cannot be changed: it is signed).
  bool partial_answer = false;
  std::vector<std::string> hidden;  // the instances left out of partial answers
  HttpResponse post(const std::string& url, const NameValues& headers,
                    const std::string& body) override {
    if (body.find("Action=CreateFleet") != std::string::npos) create_fleet_bodies.push_back(body);
    if (partial_answer && body.find("Action=CreateFleet") != std::string::npos) {
      HttpResponse r = next_.post(url, headers, body);
      pugi::xml_document d;
      d.load_string(r.body.c_str());
      pugi::xml_node root = d.document_element();
      pugi::xml_node ids = root.child("fleetInstanceSet").child("item").child("instanceIds");
      pugi::xml_node last = ids.last_child();
      if (last) {
        hidden.emplace_back(last.text().get());
        ids.remove_child(last);
      }
      pugi::xml_node err = root.append_child("errorSet").append_child("item");
      err.append_child("errorCode").text().set("InsufficientInstanceCapacity");
      err.append_child("errorMessage").text().set("not enough capacity for the whole fleet");
      std::ostringstream out;
      d.save(out);
      r.body = out.str();
      return r;
    }
    if (!no_capacity_type.empty() && body.find("Action=CreateFleet") != std::string::npos &&
        body.find("InstanceType=" + no_capacity_type + "&") != std::string::npos) {
      ++faults;
      return {200,
              "<CreateFleetResponse "
              "xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\"><requestId>x</requestId>"
              "<fleetId>fleet-injected</"
              "fleetId><errorSet><item><errorCode>" +
                  code + "</errorCode><errorMessage>We currently do not have sufficient " +
                  no_capacity_type +
                  " capacity in the Availability Zone you "
                  "requested.</errorMessage><lifecycle>spot</lifecycle>"
                  "</item></errorSet><fleetInstanceSet/></CreateFleetResponse>",
              ""};
    }
    return next_.post(url, headers, body);
  }

 private:
  HttpTransport& next_;
};

class AwsMoto : public ::testing::Test {
 protected:
  static inline pid_t moto_pid = 0;
  static inline std::string endpoint;
  static inline Credentials user;
  static inline std::map<std::string, std::string> subnets;
  static inline std::string template_id;

  static void SetUpTestSuite() {
    const int port = free_port();
    endpoint = "http://127.0.0.1:" + std::to_string(port);
    moto_pid = fork();
    if (moto_pid == 0) {
      setpgid(0, 0);
      freopen("/dev/null", "w", stdout);
      freopen("/dev/null", "w", stderr);
      const std::string p = std::to_string(port);
      execlp("moto_server", "moto_server", "-H", "127.0.0.1", "-p", p.c_str(), nullptr);
      _exit(127);
    }
    CurlTransport http(2000);
    bool up = false;
    for (int i = 0; i < 200 && !up; ++i) {
      up = http.post(endpoint + "/moto-api/reset", {}, "").status == 200;
      if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(up) << "moto_server did not start on " << endpoint;

    // Before signature checking is on, any key works: create the IAM user fitscale runs as.
    Credentials setup{"AKIDSETUP", "setup-secret", "", "setup"};
    testing::RecordingSleeper sleeper;
    WallClock clock;
    QueryClient iam(http, setup, iam_service(endpoint), clock, sleeper, [] { return 0.0; });
    iam.call("CreateUser", {{"UserName", "fitscale"}});
    iam.call(
        "PutUserPolicy",
        {{"UserName", "fitscale"},
         {"PolicyName", "autoscaler"},
         {"PolicyDocument",
          R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["ec2:*","autoscaling:*"],"Resource":"*"}]})"}});
    auto key = iam.call("CreateAccessKey", {{"UserName", "fitscale"}});
    auto k = key->document_element().child("CreateAccessKeyResult").child("AccessKey");
    user = {text(k, "AccessKeyId"), text(k, "SecretAccessKey"), "", "moto IAM user"};
    ASSERT_FALSE(user.empty());

    QueryClient ec2(http, setup, ec2_service("us-east-1", endpoint), clock, sleeper,
                    [] { return 0.0; });
    auto vpc = ec2.call("CreateVpc", {{"CidrBlock", "10.0.0.0/16"}});
    const std::string vpc_id = vpc->document_element().child("vpc").child_value("vpcId");
    int n = 1;
    for (const char* zone : {"us-east-1a", "us-east-1b"}) {
      auto s = ec2.call("CreateSubnet", {{"VpcId", vpc_id},
                                         {"CidrBlock", "10.0." + std::to_string(n++) + ".0/24"},
                                         {"AvailabilityZone", zone}});
      subnets[zone] = s->document_element().child("subnet").child_value("subnetId");
    }
    auto lt = ec2.call("CreateLaunchTemplate", {{"LaunchTemplateName", "fitscale-nodes"},
                                                {"LaunchTemplateData.ImageId", "ami-12c6146b"},
                                                {"LaunchTemplateData.InstanceType", "t3.micro"}});
    template_id = lt->document_element().child("launchTemplate").child_value("launchTemplateId");
    ec2.call("CreateLaunchTemplate", {{"LaunchTemplateName", "asg-nodes"},
                                      {"LaunchTemplateData.ImageId", "ami-12c6146b"},
                                      {"LaunchTemplateData.InstanceType", "m5.large"}});
    // From now on every request must carry a valid SigV4 signature of a known key.
    ASSERT_EQ(
        http.post(endpoint + "/moto-api/reset-auth", {{"Content-Type", "text/plain"}}, "0").status,
        200);
  }

  static void TearDownTestSuite() {
    if (moto_pid > 0) {
      kill(-moto_pid, SIGTERM);
      kill(moto_pid, SIGTERM);
      waitpid(moto_pid, nullptr, 0);
    }
  }

  // A client as fitscale builds one, with the given keys.
  struct Stack {
    CurlTransport http;
    CapacityFaults faults{http};
    ThreadSleeper sleeper;
    WallClock clock;
    QueryClient ec2;
    QueryClient asg;
    AwsProvider provider;
    Stack(const Credentials& c, AwsProviderOptions o)
        : ec2(faults, c, ec2_service("us-east-1", endpoint), clock, sleeper, [] { return 0.5; }),
          asg(faults, c, autoscaling_service("us-east-1", endpoint), clock, sleeper,
              [] { return 0.5; }),
          provider(ec2, &asg, nullptr, clock, std::move(o)) {}
  };

  static AwsProviderOptions fleet_options(const std::string& cluster) {
    AwsProviderOptions o;
    o.cluster_name = cluster;
    o.launch_template.name = "fitscale-nodes";
    o.subnets = subnets;
    return o;
  }

  static LaunchRequest request(const std::string& type, const std::string& zone, CapacityType c,
                               int count) {
    LaunchRequest r;
    r.instance_type = type;
    r.zone = zone;
    r.capacity_type = c;
    r.count = count;
    r.pool = "gpu";
    r.owner_namespace = "team-a";
    r.job = "team-a/train";
    r.client_token = "tok-" + type + "-" + zone;
    r.price_micros_per_hour = 526000;
    return r;
  }
};

}  // namespace fitscale::aws
