// The query-protocol client: what a user sees when AWS throttles, fails, paginates or refuses.
#include <gtest/gtest.h>

#include "aws_fake_transport.h"
#include "cloud/aws/query_client.h"

namespace fitscale::aws {
namespace {

using testing::FakeTransport;
using testing::FixedClock;
using testing::RecordingSleeper;

const Credentials kCreds{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "", "test"};

std::string ec2_error(const std::string& code) {
  return "<?xml version=\"1.0\"?><Response><Errors><Error><Code>" + code +
         "</Code><Message>msg of " + code +
         "</Message></Error></Errors><RequestID>r</RequestID></Response>";
}

struct Client {
  FakeTransport transport;
  RecordingSleeper sleeper;
  FixedClock clock;
  QueryClient client{transport, kCreds,  ec2_service("us-east-1", "http://127.0.0.1:5000"),
                     clock,     sleeper, [] { return 0.5; }};
};

TEST(AwsQueryClient, SendsASignedFormPostWithActionAndVersion) {
  Client c;
  c.transport.answers.push_back({200, "<DescribeInstancesResponse/>", ""});
  c.client.call("DescribeInstances", {{"Filter.1.Name", "tag:fitscale.io/cluster"}});
  ASSERT_EQ(c.transport.sent.size(), 1u);
  const auto& s = c.transport.sent[0];
  EXPECT_EQ(s.url, "http://127.0.0.1:5000");
  EXPECT_EQ(
      s.body,
      "Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=tag%3Afitscale.io%2Fcluster");
  std::string auth, host, date;
  for (const auto& [k, v] : s.headers) {
    if (k == "Authorization") auth = v;
    if (k == "Host") host = v;
    if (k == "X-Amz-Date") date = v;
  }
  EXPECT_EQ(host, "127.0.0.1:5000");
  EXPECT_EQ(date, "20150830T123600Z");
  EXPECT_EQ(
      auth.rfind("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/ec2/aws4_request, "
                 "SignedHeaders=content-type;host;x-amz-date, Signature=",
                 0),
      0u)
      << auth;
  // The secret never leaves the process.
  for (const auto& [k, v] : s.headers)
    EXPECT_EQ(v.find(kCreds.secret_access_key), std::string::npos);
  EXPECT_EQ(s.body.find(kCreds.secret_access_key), std::string::npos);
}

TEST(AwsQueryClient, RetriesThrottlingAndServerErrorsWithGrowingJitteredDelays) {
  Client c;
  c.transport.answers.push_back({503, ec2_error("RequestLimitExceeded"), ""});
  c.transport.answers.push_back({400,
                                 "<ErrorResponse><Error><Code>Throttling</Code><Message>Rate "
                                 "exceeded</Message></Error></ErrorResponse>",
                                 ""});
  c.transport.answers.push_back({500, "<html>oops</html>", ""});
  c.transport.answers.push_back({0, "", "Connection refused"});
  c.transport.answers.push_back(
      {200, "<DescribeInstancesResponse><ok>yes</ok></DescribeInstancesResponse>", ""});
  auto doc = c.client.call("DescribeInstances", {});
  EXPECT_EQ(text(doc->document_element(), "ok"), "yes");
  EXPECT_EQ(c.transport.sent.size(), 5u);
  // base 100ms doubling, times the injected draw of 0.5.
  EXPECT_EQ(c.sleeper.waits, (std::vector<long>{50, 100, 200, 400}));
}

TEST(AwsQueryClient, GivesUpAfterMaxAttemptsWithTheLastCode) {
  Client c;
  for (int i = 0; i < 10; ++i)
    c.transport.answers.push_back({503, ec2_error("RequestLimitExceeded"), ""});
  try {
    c.client.call("CreateFleet", {});
    FAIL() << "expected AwsError";
  } catch (const AwsError& e) {
    EXPECT_EQ(e.code(), "RequestLimitExceeded");
    EXPECT_NE(std::string(e.what()).find("after 6 attempts"), std::string::npos) << e.what();
  }
  EXPECT_EQ(c.transport.sent.size(), 6u);
}

TEST(AwsQueryClient, BackoffIsCappedAndJittered) {
  RetryPolicy p;
  EXPECT_EQ(backoff_delay_ms(p, 0, 0.0), 0);
  EXPECT_EQ(backoff_delay_ms(p, 3, 0.99), 792);
  EXPECT_EQ(backoff_delay_ms(p, 20, 1.0), p.max_delay_ms);
}

TEST(AwsQueryClient, AuthFailureIsNotRetriedAndSaysSo) {
  Client c;
  c.transport.answers.push_back({401, ec2_error("AuthFailure"), ""});
  try {
    c.client.call("CreateFleet", {});
    FAIL() << "expected AwsError";
  } catch (const AwsError& e) {
    EXPECT_EQ(e.code(), "AuthFailure");
    EXPECT_EQ(e.http_status(), 401);
    EXPECT_NE(std::string(e.what()).find("AWS refused the credentials"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find(kCreds.secret_access_key), std::string::npos);
  }
  EXPECT_EQ(c.transport.sent.size(), 1u);
  EXPECT_TRUE(c.sleeper.waits.empty());
}

TEST(AwsQueryClient, DecodesBothErrorShapes) {
  auto ec2 = decode_error(ec2_error("InvalidParameterValue"), 400);
  EXPECT_EQ(ec2.code, "InvalidParameterValue");
  EXPECT_EQ(ec2.message, "msg of InvalidParameterValue");
  auto asg = decode_error(
      "<ErrorResponse "
      "xmlns=\"http://autoscaling.amazonaws.com/doc/2011-01-01/\"><Error><Type>Sender</Type>"
      "<Code>ValidationError</Code><Message>New SetDesiredCapacity value 9 is above max value "
      "5</Message>"
      "</Error></ErrorResponse>",
      400);
  EXPECT_EQ(asg.code, "ValidationError");
  EXPECT_EQ(
      decode_error(
          "<ErrorResponse><Errors><Error><Code>AuthFailure</Code></Error></Errors></ErrorResponse>",
          401)
          .code,
      "AuthFailure");
  EXPECT_EQ(decode_error("not xml", 502).code, "HTTP502");
}

TEST(AwsQueryClient, FollowsNextTokenAcrossPages) {
  Client c;
  c.transport.answers.push_back({200, "<R><item>1</item><nextToken>abc/+=</nextToken></R>", ""});
  c.transport.answers.push_back({200, "<R><item>2</item><nextToken>def</nextToken></R>", ""});
  c.transport.answers.push_back({200, "<R><item>3</item></R>", ""});
  std::vector<std::string> items;
  c.client.call_paginated("DescribeInstances", {{"MaxResults", "5"}},
                          [&](const pugi::xml_node& root) { items.push_back(text(root, "item")); });
  EXPECT_EQ(items, (std::vector<std::string>{"1", "2", "3"}));
  ASSERT_EQ(c.transport.sent.size(), 3u);
  EXPECT_EQ(c.transport.sent[0].body.find("NextToken"), std::string::npos);
  EXPECT_NE(c.transport.sent[1].body.find("&NextToken=abc%2F%2B%3D"), std::string::npos);
  EXPECT_NE(c.transport.sent[2].body.find("&NextToken=def"), std::string::npos);
}

TEST(AwsQueryClient, FollowsAutoScalingNextTokenInsideTheResult) {
  Client c;
  c.transport.answers.push_back(
      {200,
       "<DescribeAutoScalingGroupsResponse><DescribeAutoScalingGroupsResult><NextToken>t2</"
       "NextToken></DescribeAutoScalingGroupsResult></DescribeAutoScalingGroupsResponse>",
       ""});
  c.transport.answers.push_back(
      {200,
       "<DescribeAutoScalingGroupsResponse><DescribeAutoScalingGroupsResult/></"
       "DescribeAutoScalingGroupsResponse>",
       ""});
  int pages = 0;
  c.client.call_paginated("DescribeAutoScalingGroups", {}, [&](const pugi::xml_node&) { ++pages; });
  EXPECT_EQ(pages, 2);
}

TEST(AwsQueryClient, SessionTokenIsSent) {
  FakeTransport t;
  RecordingSleeper s;
  FixedClock clock;
  Credentials creds = kCreds;
  creds.session_token = "tok";
  QueryClient client(t, creds, autoscaling_service("eu-west-1"), clock, s, [] { return 0.0; });
  t.answers.push_back({200, "<X/>", ""});
  client.call("DescribeAutoScalingGroups", {});
  EXPECT_EQ(t.sent[0].url, "https://autoscaling.eu-west-1.amazonaws.com");
  bool found = false;
  for (const auto& [k, v] : t.sent[0].headers)
    found = found || (k == "X-Amz-Security-Token" && v == "tok");
  EXPECT_TRUE(found);
  EXPECT_NE(t.sent[0].body.find("Version=2011-01-01"), std::string::npos);
}

}  // namespace
}  // namespace fitscale::aws
