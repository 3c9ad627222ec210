// Where fitscale finds AWS keys, in the AWS CLI's order, and what it says when there are none.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cloud/aws/credentials.h"
#include "model/error.h"

namespace fitscale::aws {
namespace {

const char* kCredentialsFile = R"(# comment
[default]
aws_access_key_id = AKIADEFAULT
aws_secret_access_key = secret-default

[dev]
aws_access_key_id=AKIADEV
aws_secret_access_key=secret-dev
aws_session_token = token-dev
)";

TEST(AwsCredentials, ParsesProfilesOfTheCredentialsFile) {
  auto d = parse_credentials_ini(kCredentialsFile, "creds", "default", false);
  EXPECT_EQ(d.access_key_id, "AKIADEFAULT");
  EXPECT_EQ(d.secret_access_key, "secret-default");
  auto dev = parse_credentials_ini(kCredentialsFile, "creds", "dev", false);
  EXPECT_EQ(dev.access_key_id, "AKIADEV");
  EXPECT_EQ(dev.session_token, "token-dev");
  EXPECT_EQ(dev.source, "creds [dev]");
  EXPECT_TRUE(parse_credentials_ini(kCredentialsFile, "creds", "prod", false).empty());
}

TEST(AwsCredentials, ConfigFileProfilesAreNamedProfileX) {
  const char* config = "[profile ops]\naws_access_key_id = AKIAOPS\naws_secret_access_key = s\n";
  EXPECT_EQ(parse_credentials_ini(config, "config", "ops", true).access_key_id, "AKIAOPS");
  EXPECT_TRUE(parse_credentials_ini(config, "config", "ops", false).empty());
}

TEST(AwsCredentials, MalformedLineNamesFileAndLine) {
  try {
    parse_credentials_ini("[default]\nthis is not a setting\n", "/home/u/.aws/credentials",
                          "default", false);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/home/u/.aws/credentials:2"), std::string::npos)
        << e.what();
  }
}

struct TempHome {
  std::filesystem::path dir;
  TempHome() {
    char tmpl[] = "/tmp/fitscale-aws-home-XXXXXX";
    dir = mkdtemp(tmpl);
    std::filesystem::create_directories(dir / ".aws");
    std::ofstream(dir / ".aws" / "credentials") << kCredentialsFile;
  }
  ~TempHome() { std::filesystem::remove_all(dir); }
};

TEST(AwsCredentials, EnvironmentKeysWinOverTheDefaultProfile) {
  TempHome home;
  CredentialEnvironment env;
  env.home = home.dir;
  env.access_key_id = "AKIAENV";
  env.secret_access_key = "secret-env";
  env.session_token = "tok";
  auto c = resolve_credentials(env, "");
  EXPECT_EQ(c.access_key_id, "AKIAENV");
  EXPECT_EQ(c.session_token, "tok");
  EXPECT_EQ(c.source, "environment");
}

TEST(AwsCredentials, ProfileFromAwsProfileOrTheConfigFile) {
  TempHome home;
  CredentialEnvironment env;
  env.home = home.dir;
  EXPECT_EQ(resolve_credentials(env, "").access_key_id, "AKIADEFAULT");
  env.profile = "dev";
  EXPECT_EQ(resolve_credentials(env, "").access_key_id, "AKIADEV");
  // A profile named in fitscale's config beats the environment's keys.
  env.access_key_id = "AKIAENV";
  env.secret_access_key = "secret-env";
  env.profile = "";
  EXPECT_EQ(resolve_credentials(env, "dev").access_key_id, "AKIADEV");
}

TEST(AwsCredentials, SharedCredentialsFileOverride) {
  TempHome home;
  auto file = home.dir / "other";
  std::ofstream(file) << "[default]\naws_access_key_id = AKIAOTHER\naws_secret_access_key = x\n";
  CredentialEnvironment env;
  env.home = "/nonexistent";
  env.shared_credentials_file = file;
  EXPECT_EQ(resolve_credentials(env, "").access_key_id, "AKIAOTHER");
}

TEST(AwsCredentials, NoKeysAnywhereSaysWhereItLooked) {
  CredentialEnvironment env;
  env.home = "/nonexistent-home";
  env.profile = "ci";
  try {
    resolve_credentials(env, "");
    FAIL();
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("AWS_ACCESS_KEY_ID"), std::string::npos);
    EXPECT_NE(m.find("'ci'"), std::string::npos);
    EXPECT_NE(m.find("/nonexistent-home/.aws/credentials"), std::string::npos);
  }
}

}  // namespace
}  // namespace fitscale::aws
