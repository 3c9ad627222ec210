// A secret that reaches a log line is a leak: these are the shapes fitscale handles (AWS keys,
// kubeconfig tokens and client keys, bearer headers) and none of them may be printed.
#include "obs/redact.h"

#include <gtest/gtest.h>

#include <sstream>

#include "obs/logger.h"

namespace fitscale::obs {
namespace {

// Well-known example credentials (AWS documentation's fake keys) and made-up tokens.
const char* kAccessKey = "AKIAIOSFODNN7EXAMPLE";
const char* kSecretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const char* kJwt =
    "eyJhbGciOiJSUzI1NiIsImtpZCI6ImFiYyJ9.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50In0."
    "c2lnbmF0dXJlLWJ5dGVz";
const char* kOpaqueToken = "kube-token-3f9a7c1e55d0";
const char* kPassword = "hunter2-correct-horse";
const char* kClientKeyData =
    "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBdGVzdGtleWRhdGFmb3JmaXRzY2FsZQ"
    "o=";
const char* kPem =
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAtest\nline2secret\n-----END RSA PRIVATE "
    "KEY-----";

std::vector<std::string> secrets() {
  return {kAccessKey,
          kSecretKey,
          kJwt,
          kOpaqueToken,
          kPassword,
          kClientKeyData,
          "MIIEowIBAAKCAQEAtest",
          "line2secret"};
}

void expect_clean(const std::string& out) {
  for (const auto& s : secrets())
    EXPECT_EQ(out.find(s), std::string::npos) << "leaked " << s << " in: " << out;
}

std::string log_everything(LogFormat format) {
  std::ostringstream out;
  Logger log({format, LogLevel::Debug, [] { return Time{1764452710}; }}, out);
  log.info(std::string("aws credentials aws_access_key_id=") + kAccessKey +
           " aws_secret_access_key=" + kSecretKey);
  log.info(std::string("GET /api/v1/nodes Authorization: Bearer ") + kJwt);
  log.warn(std::string("kubeconfig user token: ") + kOpaqueToken);
  log.error(std::string("{\"password\": \"") + kPassword + "\", \"user\": \"admin\"}");
  log.info(std::string("client-key-data: ") + kClientKeyData);
  log.info(std::string("key file contents ") + kPem);
  log.info(std::string("bare secret ") + kSecretKey + " and bare key " + kAccessKey + " and jwt " +
           kJwt);
  log.info("fields", {{"token", kOpaqueToken},
                      {"secret", "s3cr3t-value-that-is-short"},
                      {"password", kPassword},
                      {"client-key-data", kClientKeyData},
                      {"note", std::string("Bearer ") + kOpaqueToken},
                      {"instance_type", "p3.8xlarge"}});
  return out.str();
}

TEST(Redaction, KnownSecretsNeverAppearInTextLogs) {
  std::string out = log_everything(LogFormat::Text);
  expect_clean(out);
  EXPECT_EQ(out.find("s3cr3t-value-that-is-short"), std::string::npos);
  // What is not secret still reads normally.
  EXPECT_NE(out.find("instance_type=p3.8xlarge"), std::string::npos) << out;
  EXPECT_NE(out.find("token=[REDACTED]"), std::string::npos) << out;
  EXPECT_NE(out.find("\"user\": \"admin\""), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 8)
      << "one line per call, PEM folded: " << out;
}

TEST(Redaction, KnownSecretsNeverAppearInJsonLogs) {
  std::string out = log_everything(LogFormat::Json);
  expect_clean(out);
  EXPECT_NE(out.find("\"instance_type\":\"p3.8xlarge\""), std::string::npos) << out;
}

TEST(Redaction, OrdinaryOperationalTextIsLeftAlone) {
  for (const char* s : {"launch 2 x p3.8xlarge spot in us-east-1a for team-a/train-0: $24.48/h",
                        "aws:///us-east-1a/i-0123456789abcdef0",
                        "refused: team-b would spend $1,152 of its $1,000 daily budget",
                        "node ip-10-0-1-17.ec2.internal empty for 312s"}) {
    EXPECT_EQ(redact_text(s), s);
  }
}

TEST(Redaction, SecretFieldNames) {
  EXPECT_TRUE(is_secret_field_name("token"));
  EXPECT_TRUE(is_secret_field_name("AWS_SECRET_ACCESS_KEY"));
  EXPECT_TRUE(is_secret_field_name("client-key-data"));
  EXPECT_TRUE(is_secret_field_name("Password"));
  EXPECT_FALSE(is_secret_field_name("instance_type"));
  EXPECT_FALSE(is_secret_field_name("offering"));
}

}  // namespace
}  // namespace fitscale::obs
