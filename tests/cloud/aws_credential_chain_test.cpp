// The AWS credential chain in the SDKs' order (environment, web identity, shared files,
// container credentials, IMDSv2), each source's HTTP contract with a scripted transport, the
// refresh before Expiration on an injected clock, and the one-line error when nothing yields keys.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "aws_fake_transport.h"
#include "cloud/aws/credential_chain.h"
#include "cloud/aws/credential_endpoints.h"
#include "cloud/aws/query_client.h"
#include "model/error.h"

namespace fitscale::aws {
namespace {

struct Sent {
  std::string method, url;
  NameValues headers;
  std::string body;
  std::string header(const std::string& name) const {
    for (const auto& [k, v] : headers)
      if (k == name) return v;
    return "";
  }
};

// Answers by "METHOD URL" with a handler; records every request. Unrouted: no answer (as an
// address where nothing listens).
class Routes final : public HttpTransport {
 public:
  std::map<std::string, std::function<HttpResponse(const Sent&)>> routes;
  std::vector<Sent> sent;
  HttpResponse post(const std::string& url, const NameValues& h, const std::string& b) override {
    return send("POST", url, h, b);
  }
  HttpResponse send(const std::string& method, const std::string& url, const NameValues& h,
                    const std::string& b) override {
    sent.push_back({method, url, h, b});
    auto it = routes.find(method + " " + url);
    if (it == routes.end()) return {0, "", "Connection refused"};
    return it->second(sent.back());
  }
};

std::string creds_json(const std::string& key, const std::string& expiration) {
  return R"({"Code":"Success","AccessKeyId":")" + key +
         R"(","SecretAccessKey":"s3cr3t","Token":"tok-)" + key + R"(","Expiration":")" +
         expiration + R"("})";
}

const char* kStsAnswer =
    R"(<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <Credentials>
      <SessionToken>FwoGZXIvYXdzEXAMPLE</SessionToken>
      <SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY</SecretAccessKey>
      <Expiration>2026-12-01T13:00:00Z</Expiration>
      <AccessKeyId>ASIAWEBIDENTITY</AccessKeyId>
    </Credentials>
    <SubjectFromWebIdentityToken>system:serviceaccount:fitscale:fitscale</SubjectFromWebIdentityToken>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata><RequestId>ad4156e9-bce1-11e2-82e6-6b6efEXAMPLE</RequestId></ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>)";

struct Dir {
  std::filesystem::path path;
  Dir() {
    path = std::filesystem::temp_directory_path() /
           ("fitscale-chain-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(path);
  }
  ~Dir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

// Every source configured at once; each test removes the ones before the one it checks.
struct Everything {
  Dir dir;
  std::shared_ptr<Routes> http = std::make_shared<Routes>();
  std::shared_ptr<Routes> imds = std::make_shared<Routes>();
  CredentialChainOptions o;
  Everything() {
    o.region = "eu-west-1";
    o.env.home = dir.path.string();
    o.env.access_key_id = "AKIAENV";
    o.env.secret_access_key = "env-secret";
    o.env.web_identity_token_file = dir.write("token", "eyJhbGciOiJSUzI1NiJ9.irsa.sig\n");
    o.env.role_arn = "arn:aws:iam::123456789012:role/fitscale";
    std::filesystem::create_directories(dir.path / ".aws");
    dir.write(".aws/credentials",
              "[default]\naws_access_key_id = AKIAFILE\n"
              "aws_secret_access_key = file-secret\n");
    o.env.container_full_uri = "http://169.254.170.23/v1/credentials";
    o.env.container_authorization_token_file = dir.write("pod-identity-token", "pod-id-token");
    o.env.ec2_metadata_endpoint = "http://169.254.169.254";
    http->routes["POST https://sts.eu-west-1.amazonaws.com"] = [](const Sent&) {
      return HttpResponse{200, kStsAnswer, ""};
    };
    http->routes["GET http://169.254.170.23/v1/credentials"] = [](const Sent& s) {
      const auto auth = s.header("Authorization");
      if (auth == "rotated")
        return HttpResponse{200, creds_json("ASIAROTATED", "2026-12-01T19:00:00Z"), ""};
      if (auth != "pod-id-token")
        return HttpResponse{401, R"({"code":"AccessDeniedException","message":"bad token"})", ""};
      return HttpResponse{200, creds_json("ASIACONTAINER", "2026-12-01T13:00:00Z"), ""};
    };
    imds->routes["PUT http://169.254.169.254/latest/api/token"] = [](const Sent& s) {
      if (s.header("X-aws-ec2-metadata-token-ttl-seconds").empty())
        return HttpResponse{400, "", ""};
      return HttpResponse{200, "imds-session-token", ""};
    };
    imds->routes["GET http://169.254.169.254/latest/meta-data/iam/security-credentials/"] =
        [](const Sent& s) {
          if (s.header("X-aws-ec2-metadata-token") != "imds-session-token")
            return HttpResponse{401, "", ""};
          return HttpResponse{200, "node-role", ""};
        };
    imds->routes["GET http://169.254.169.254/latest/meta-data/iam/security-credentials/node-role"] =
        [](const Sent& s) {
          if (s.header("X-aws-ec2-metadata-token") != "imds-session-token")
            return HttpResponse{401, "", ""};
          return HttpResponse{200, creds_json("ASIAIMDS", "2026-12-01T18:00:00Z"), ""};
        };
  }
  std::shared_ptr<CredentialSource> resolve() { return resolve_credential_chain(o, http, imds); }
};

constexpr Time kNow = 1'764'590'400;  // 2025-12-01T12:00:00Z: before every expiration above

TEST(AwsCredentialChain, EnvironmentKeysComeFirstAndNothingIsFetched) {
  Everything e;
  auto c = e.resolve()->credentials(kNow);
  EXPECT_EQ(c.access_key_id, "AKIAENV");
  EXPECT_EQ(c.source, "environment");
  EXPECT_TRUE(e.http->sent.empty());
  EXPECT_TRUE(e.imds->sent.empty());
}

TEST(AwsCredentialChain, WebIdentityIsAnUnsignedAssumeRoleWithWebIdentityWithTheTokenFile) {
  Everything e;
  e.o.env.access_key_id.clear();
  e.o.env.role_session_name = "fitscale-prod";
  auto source = e.resolve();
  auto c = source->credentials(kNow);
  EXPECT_EQ(c.access_key_id, "ASIAWEBIDENTITY");
  EXPECT_EQ(c.session_token, "FwoGZXIvYXdzEXAMPLE");
  EXPECT_EQ(source->describe(), "web identity (arn:aws:iam::123456789012:role/fitscale)");
  ASSERT_EQ(e.http->sent.size(), 1u);
  const auto& req = e.http->sent[0];
  EXPECT_EQ(req.header("Authorization"), "");  // STS checks the token, not a signature
  auto form = testing::form_fields(req.body);
  EXPECT_EQ(form["Action"], "AssumeRoleWithWebIdentity");
  EXPECT_EQ(form["Version"], "2011-06-15");
  EXPECT_EQ(form["RoleArn"], "arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Ffitscale");
  EXPECT_EQ(form["RoleSessionName"], "fitscale-prod");
  EXPECT_EQ(form["WebIdentityToken"], "eyJhbGciOiJSUzI1NiJ9.irsa.sig");  // newline trimmed
  EXPECT_TRUE(e.imds->sent.empty());
}

TEST(AwsCredentialChain, StsEndpointIsRegionalOrTheConfiguredOne) {
  CredentialChainOptions o;
  o.region = "ap-south-1";
  EXPECT_EQ(sts_endpoint(o), "https://sts.ap-south-1.amazonaws.com");
  o.endpoint = "http://127.0.0.1:5000";
  EXPECT_EQ(sts_endpoint(o), "http://127.0.0.1:5000");
  o.env.sts_endpoint = "http://127.0.0.1:6000";
  EXPECT_EQ(sts_endpoint(o), "http://127.0.0.1:6000");
}

TEST(AwsCredentialChain, ARefusedWebIdentityTokenStopsTheChainWithStsError) {
  Everything e;
  e.o.env.access_key_id.clear();
  e.http->routes["POST https://sts.eu-west-1.amazonaws.com"] = [](const Sent&) {
    return HttpResponse{400,
                        "<ErrorResponse><Error><Type>Sender</Type><Code>InvalidIdentityToken</Code>"
                        "<Message>Incorrect token audience</Message></Error></ErrorResponse>",
                        ""};
  };
  try {
    e.resolve();
    FAIL() << "no error";
  } catch (const InputError& err) {
    const std::string m = err.what();
    EXPECT_NE(m.find("InvalidIdentityToken"), std::string::npos) << m;
    EXPECT_NE(m.find("arn:aws:iam::123456789012:role/fitscale"), std::string::npos) << m;
    EXPECT_EQ(m.find("eyJhbGci"), std::string::npos) << "the token leaked: " << m;
  }
  EXPECT_TRUE(e.imds->sent.empty()) << "fell through to other credentials";
}

TEST(AwsCredentialChain, SharedFilesComeBeforeContainerAndInstanceMetadata) {
  Everything e;
  e.o.env.access_key_id.clear();
  e.o.env.web_identity_token_file.clear();
  auto c = e.resolve()->credentials(kNow);
  EXPECT_EQ(c.access_key_id, "AKIAFILE");
  EXPECT_TRUE(e.http->sent.empty());
  EXPECT_TRUE(e.imds->sent.empty());
}

TEST(AwsCredentialChain, ContainerCredentialsSendTheTokenFileAsAuthorization) {
  Everything e;
  e.o.env.access_key_id.clear();
  e.o.env.web_identity_token_file.clear();
  std::filesystem::remove(e.dir.path / ".aws/credentials");
  e.o.env.container_authorization_token = "ignored-when-a-file-is-set";
  auto source = e.resolve();
  auto c = source->credentials(kNow);
  EXPECT_EQ(c.access_key_id, "ASIACONTAINER");
  EXPECT_EQ(c.session_token, "tok-ASIACONTAINER");
  ASSERT_EQ(e.http->sent.size(), 1u);
  EXPECT_EQ(e.http->sent[0].header("Authorization"), "pod-id-token");
  EXPECT_TRUE(e.imds->sent.empty());
  // The token file is read on every fetch (EKS rotates it): a refresh sends the new one.
  e.dir.write("pod-identity-token", "rotated");
  EXPECT_EQ(source->credentials(parse_rfc3339("2026-12-01T12:54:59Z")).access_key_id,
            "ASIACONTAINER");
  EXPECT_EQ(e.http->sent.size(), 1u);
  EXPECT_EQ(source->credentials(parse_rfc3339("2026-12-01T12:55:00Z")).access_key_id,
            "ASIAROTATED");
  EXPECT_EQ(e.http->sent.back().header("Authorization"), "rotated");
}

TEST(AwsCredentialChain, ContainerTokenFromTheEnvironmentWithoutAFileAndTheEcsRelativeUri) {
  Everything e;
  e.o.env.access_key_id.clear();
  e.o.env.web_identity_token_file.clear();
  std::filesystem::remove(e.dir.path / ".aws/credentials");
  e.o.env.container_full_uri.clear();
  e.o.env.container_relative_uri = "/v2/credentials/abc";
  e.o.env.container_authorization_token_file.clear();
  e.o.env.container_authorization_token = "Bearer ecs";
  e.http->routes["GET http://169.254.170.2/v2/credentials/abc"] = [](const Sent& s) {
    if (s.header("Authorization") != "Bearer ecs") return HttpResponse{403, "", ""};
    return HttpResponse{200, creds_json("ASIAECS", "2026-12-01T13:00:00Z"), ""};
  };
  EXPECT_EQ(e.resolve()->credentials(kNow).access_key_id, "ASIAECS");
}

TEST(AwsCredentialChain, ContainerFullUriOverPlainHttpOnlyToLoopbackOrTheAgents) {
  ContainerCredentialOptions o;
  for (const char* ok :
       {"http://127.0.0.1:8080/creds", "http://localhost/x", "http://169.254.170.23/v1/credentials",
        "http://[fd00:ec2::23]/v1", "http://169.254.170.2/x", "https://creds.example.com/x"}) {
    o.full_uri = ok;
    EXPECT_EQ(container_credentials_url(o), ok);
  }
  for (const char* bad : {"http://creds.example.com/x", "http://10.0.0.1/x", "ftp://127.0.0.1/"}) {
    o.full_uri = bad;
    try {
      container_credentials_url(o);
      FAIL() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("AWS_CONTAINER_CREDENTIALS_FULL_URI"),
                std::string::npos);
    }
  }
}

TEST(AwsCredentialChain, ARefusedContainerTokenIsAnErrorNotAFallThrough) {
  Everything e;
  e.o.env.access_key_id.clear();
  e.o.env.web_identity_token_file.clear();
  std::filesystem::remove(e.dir.path / ".aws/credentials");
  e.dir.write("pod-identity-token", "wrong");
  try {
    e.resolve();
    FAIL() << "no error";
  } catch (const InputError& err) {
    const std::string m = err.what();
    EXPECT_NE(m.find("HTTP 401"), std::string::npos) << m;
    EXPECT_NE(m.find("AccessDeniedException"), std::string::npos) << m;
  }
  EXPECT_TRUE(e.imds->sent.empty());
}

TEST(AwsCredentialChain, InstanceMetadataIsImdsV2TokenThenRoleThenKeys) {
  Everything e;
  e.o.env.access_key_id.clear();
  e.o.env.web_identity_token_file.clear();
  std::filesystem::remove(e.dir.path / ".aws/credentials");
  e.o.env.container_full_uri.clear();
  auto source = e.resolve();
  auto c = source->credentials(kNow);
  EXPECT_EQ(c.access_key_id, "ASIAIMDS");
  EXPECT_EQ(source->describe(), "instance metadata (http://169.254.169.254)");
  ASSERT_EQ(e.imds->sent.size(), 3u);
  EXPECT_EQ(e.imds->sent[0].method, "PUT");
  EXPECT_EQ(e.imds->sent[0].header("X-aws-ec2-metadata-token-ttl-seconds"), "21600");
  EXPECT_EQ(e.imds->sent[1].header("X-aws-ec2-metadata-token"), "imds-session-token");
  EXPECT_EQ(e.imds->sent[2].url,
            "http://169.254.169.254/latest/meta-data/iam/security-credentials/node-role");
}

TEST(AwsCredentialChain, NothingAnywhereIsOneLineNamingEverySourceTried) {
  Everything e;
  e.o.env = {};
  e.o.env.home = "/nonexistent-home";
  e.imds->routes.clear();  // nothing answers at 169.254.169.254 off EC2
  try {
    e.resolve();
    FAIL() << "no error";
  } catch (const InputError& err) {
    const std::string m = err.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    for (const char* part :
         {"environment (AWS_ACCESS_KEY_ID not set)", "web identity (AWS_WEB_IDENTITY_TOKEN_FILE",
          "profile 'default' in /nonexistent-home/.aws/credentials", "container credentials (",
          "instance metadata http://169.254.169.254 (NoAnswer"}) {
      EXPECT_NE(m.find(part), std::string::npos) << part << " not in: " << m;
    }
  }
  e.o.env.ec2_metadata_disabled = true;
  e.imds->sent.clear();
  EXPECT_THROW(e.resolve(), InputError);
  EXPECT_TRUE(e.imds->sent.empty());
}

TEST(AwsCredentialChain, AConfiguredProfileIsUsedAloneAndMustHaveKeys) {
  Everything e;
  e.o.configured_profile = "default";
  EXPECT_EQ(e.resolve()->credentials(kNow).access_key_id, "AKIAFILE");  // not the environment's
  e.o.configured_profile = "prod";
  EXPECT_THROW(e.resolve(), InputError);
}

// Refresh, on an injected clock: 5 minutes before Expiration, never on every request.
TEST(AwsCredentialRefresh, FetchesAgainFiveMinutesBeforeExpiryAndKeepsValidKeysOnAFailure) {
  const Time expiry = 10'000;
  int calls = 0;
  bool fail = false;
  RefreshingCredentials source(
      "test",
      [&] {
        ++calls;
        if (fail) throw AwsError("GetCredentials", "NoAnswer", "down", 0);
        return TemporaryCredentials{{"ASIA" + std::to_string(calls), "s", "t", "test"},
                                    expiry + calls * 3600};
      },
      TemporaryCredentials{{"ASIA0", "s", "t", "test"}, expiry});
  EXPECT_EQ(source.credentials(expiry - kCredentialRefreshBefore - 1).access_key_id, "ASIA0");
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(source.credentials(expiry - kCredentialRefreshBefore).access_key_id, "ASIA1");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(source.credentials(expiry).access_key_id, "ASIA1");  // new expiry is an hour later
  EXPECT_EQ(calls, 1);
  fail = true;
  const Time next_expiry = expiry + 3600;
  // Inside the window but not expired: the old keys still sign, and the source asks again only
  // kCredentialRetryAfter later (an unreachable endpoint must not slow every request).
  EXPECT_EQ(source.credentials(next_expiry - 100).access_key_id, "ASIA1");
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(source.credentials(next_expiry - 100 + kCredentialRetryAfter - 1).access_key_id,
            "ASIA1");
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(source.credentials(next_expiry - 100 + kCredentialRetryAfter).access_key_id, "ASIA1");
  EXPECT_EQ(calls, 3);
  try {
    source.credentials(next_expiry);
    FAIL() << "expired keys were used";
  } catch (const AwsError& e) {
    EXPECT_EQ(e.code(), "ExpiredToken");
    EXPECT_NE(std::string(e.what()).find("test"), std::string::npos);
  }
  fail = false;
  EXPECT_EQ(source.credentials(next_expiry + 10).access_key_id, "ASIA5");
}

TEST(AwsCredentialRefresh, EveryRequestIsSignedWithTheKeysCurrentAtItsTime) {
  testing::FakeTransport http;
  testing::RecordingSleeper sleeper;
  testing::FixedClock clock;
  clock.t = 1000;
  int fetched = 0;
  auto source = std::make_shared<RefreshingCredentials>(
      "test",
      [&] {
        ++fetched;
        return TemporaryCredentials{{"ASIANEW", "s2", "session-new", "test"}, Time{100'000}};
      },
      TemporaryCredentials{{"ASIAOLD", "s1", "session-old", "test"}, Time{2000}});
  QueryClient ec2(http, source, ec2_service("us-east-1"), clock, sleeper, [] { return 0.0; });
  auto token_of = [&](const testing::SentRequest& r) {
    for (const auto& [k, v] : r.headers)
      if (k == "X-Amz-Security-Token") return v;
    return std::string();
  };
  http.answers.push_back({200, "<DescribeInstancesResponse/>", ""});
  ec2.call("DescribeInstances", {});
  EXPECT_EQ(token_of(http.sent.back()), "session-old");
  clock.t = 2000 - kCredentialRefreshBefore;
  http.answers.push_back({200, "<DescribeInstancesResponse/>", ""});
  ec2.call("DescribeInstances", {});
  EXPECT_EQ(token_of(http.sent.back()), "session-new");
  EXPECT_EQ(fetched, 1);
}

TEST(AwsCredentialEndpoints, CredentialsJsonNeedsKeysAndAnRfc3339Expiration) {
  auto t = parse_credentials_json(creds_json("ASIAX", "2026-12-01T13:00:00Z"), "x");
  EXPECT_EQ(*t.expiration, parse_rfc3339("2026-12-01T13:00:00Z"));
  EXPECT_THROW(parse_credentials_json("{}", "x"), AwsError);
  EXPECT_THROW(parse_credentials_json("not json", "x"), AwsError);
  EXPECT_THROW(parse_credentials_json(creds_json("ASIAX", "tomorrow"), "x"), AwsError);
  auto w = parse_assume_role_with_web_identity(kStsAnswer);
  EXPECT_EQ(w.credentials.access_key_id, "ASIAWEBIDENTITY");
  EXPECT_EQ(*w.expiration, parse_rfc3339("2026-12-01T13:00:00Z"));
}

}  // namespace
}  // namespace fitscale::aws
