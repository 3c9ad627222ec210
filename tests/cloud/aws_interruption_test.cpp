// Spot interruption notices from an EventBridge-fed SQS queue: which events mark an instance,
// that the mark outlives the message (an EC2 tag) and that a dry run changes nothing in AWS.
#include <gtest/gtest.h>

#include <map>

#include "aws_fake_transport.h"
#include "cloud/aws/aws_provider.h"
#include "cloud/aws/interruption_queue.h"

namespace fitscale::aws {
namespace {

using testing::FakeTransport;
using testing::FixedClock;
using testing::RecordingSleeper;

const Credentials kCreds{"AKIDEXAMPLE", "secret", "", "test"};
const std::string kQueue = "http://127.0.0.1:5000/123456789012/interruptions";

std::string event(const std::string& type, const std::string& id, const std::string& detail_extra) {
  return R"({"version":"0","id":"e1","detail-type":")" + type +
         R"(","source":"aws.ec2","time":"2026-11-30T01:00:00Z","region":"us-east-1",)"
         R"("resources":["arn:aws:ec2:us-east-1a:instance/)" +
         id + R"("],"detail":{"instance-id":")" + id + "\"" + detail_extra + "}}";
}

std::string spot_warning(const std::string& id) {
  return event("EC2 Spot Instance Interruption Warning", id, R"(,"instance-action":"terminate")");
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"')
      out += "&quot;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

std::string receive_answer(const std::vector<std::string>& bodies) {
  std::string x = "<ReceiveMessageResponse><ReceiveMessageResult>";
  int n = 0;
  for (const auto& b : bodies) {
    ++n;
    x += "<Message><MessageId>m" + std::to_string(n) + "</MessageId><ReceiptHandle>h" +
         std::to_string(n) + "</ReceiptHandle><Body>" + xml_escape(b) + "</Body></Message>";
  }
  return x + "</ReceiveMessageResult></ReceiveMessageResponse>";
}

std::string instances_answer(const std::vector<std::pair<std::string, std::string>>& ids_and_tag) {
  std::string x = "<DescribeInstancesResponse><reservationSet><item><instancesSet>";
  for (const auto& [id, notice] : ids_and_tag) {
    x += "<item><instanceId>" + id +
         "</instanceId><instanceType>g4dn.xlarge</instanceType><placement><availabilityZone>"
         "us-east-1a</availabilityZone></placement><instanceState><name>running</name>"
         "</instanceState><instanceLifecycle>spot</instanceLifecycle><tagSet><item><key>"
         "fitscale.io/cluster</key><value>c1</value></item>";
    if (!notice.empty()) {
      x += "<item><key>fitscale.io/interruption-notice</key><value>" + notice + "</value></item>";
    }
    x += "</tagSet></item>";
  }
  return x + "</instancesSet></item></reservationSet></DescribeInstancesResponse>";
}

struct World {
  FakeTransport ec2_http, sqs_http;
  RecordingSleeper sleeper;
  FixedClock clock;
  QueryClient ec2{ec2_http, kCreds,  ec2_service("us-east-1", "http://127.0.0.1:5000"),
                  clock,    sleeper, [] { return 0.0; }};
  QueryClient sqs{sqs_http, kCreds,  sqs_service(kQueue, "us-east-1"),
                  clock,    sleeper, [] { return 0.0; }};
  InterruptionQueue queue{sqs, kQueue};
  std::vector<InterruptionReport> reports;
  std::unique_ptr<AwsProvider> provider;

  explicit World(bool consume = true) {
    AwsProviderOptions o;
    o.cluster_name = "c1";
    o.consume_interruptions = consume;
    provider = std::make_unique<AwsProvider>(ec2, nullptr, nullptr, clock, o, &queue);
    provider->on_interruptions([this](const InterruptionReport& r) { reports.push_back(r); });
  }
  void answer_ec2(const std::string& xml) { ec2_http.answers.push_back({200, xml, ""}); }
  void answer_sqs(const std::string& xml) { sqs_http.answers.push_back({200, xml, ""}); }
};

std::map<std::string, bool> notices(const std::vector<Instance>& v) {
  std::map<std::string, bool> out;
  for (const auto& i : v) out[i.id] = i.interruption_notice;
  return out;
}

TEST(AwsInterruptionEvents, TheThreeEventsKarpenterActsOnAreRead) {
  auto spot = parse_interruption_event(spot_warning("i-1"));
  ASSERT_TRUE(spot);
  EXPECT_EQ(spot->kind, InterruptionKind::SpotInterruption);
  EXPECT_EQ(spot->instance_id, "i-1");
  EXPECT_EQ(spot->detail, "terminate");
  EXPECT_EQ(spot->time, "2026-11-30T01:00:00Z");
  auto rebalance =
      parse_interruption_event(event("EC2 Instance Rebalance Recommendation", "i-2", ""));
  ASSERT_TRUE(rebalance);
  EXPECT_EQ(rebalance->kind, InterruptionKind::RebalanceRecommendation);
  for (const char* state : {"stopping", "stopped", "shutting-down", "terminated"}) {
    auto e = parse_interruption_event(event("EC2 Instance State-change Notification", "i-3",
                                            std::string(R"(,"state":")") + state + "\""));
    ASSERT_TRUE(e) << state;
    EXPECT_EQ(e->kind, InterruptionKind::StateChange);
    EXPECT_EQ(e->detail, state);
  }
}

TEST(AwsInterruptionEvents, StartingInstancesOtherEventsAndGarbageAreNotNotices) {
  EXPECT_FALSE(parse_interruption_event(
      event("EC2 Instance State-change Notification", "i-3", R"(,"state":"running")")));
  EXPECT_FALSE(parse_interruption_event(event("AWS API Call via CloudTrail", "i-3", "")));
  EXPECT_FALSE(parse_interruption_event("not json at all"));
  EXPECT_FALSE(
      parse_interruption_event(R"({"detail-type":"EC2 Spot Instance Interruption Warning"})"));
  EXPECT_FALSE(parse_interruption_event("[]"));
}

TEST(AwsInterruptionQueue, ReceiveMessageAnswerIsParsed) {
  pugi::xml_document d;
  d.load_string(receive_answer({spot_warning("i-9"), "hello"}).c_str());
  auto m = parse_receive_message(d.document_element());
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].receipt_handle, "h1");
  EXPECT_EQ(m[0].body, spot_warning("i-9"));
  EXPECT_EQ(m[1].body, "hello");
}

TEST(AwsInterruptionQueue, RequestsGoSignedForSqsToTheQueueUrlWithoutLongPolling) {
  World w;
  w.answer_sqs(receive_answer({}));
  auto got = w.queue.receive();
  EXPECT_TRUE(got.events.empty());
  ASSERT_EQ(w.sqs_http.sent.size(), 1u);
  EXPECT_EQ(w.sqs_http.sent[0].url, kQueue);
  auto f = testing::form_fields(w.sqs_http.sent[0].body);
  EXPECT_EQ(f["Action"], "ReceiveMessage");
  EXPECT_EQ(f["Version"], "2012-11-05");
  EXPECT_EQ(f["WaitTimeSeconds"], "0");
  EXPECT_EQ(f["MaxNumberOfMessages"], "10");
  bool signed_for_sqs = false;
  for (const auto& [k, v] : w.sqs_http.sent[0].headers) {
    if (k == "Authorization")
      signed_for_sqs = v.find("/us-east-1/sqs/aws4_request") != std::string::npos;
  }
  EXPECT_TRUE(signed_for_sqs);
}

TEST(AwsInterruptionProvider, AWarningMarksItsInstanceTagsItAndDeletesEveryMessageRead) {
  World w;
  w.answer_ec2(instances_answer({{"i-1", ""}, {"i-2", ""}}));
  w.answer_sqs(receive_answer({spot_warning("i-1"), spot_warning("i-other"), "{}"}));
  w.answer_ec2("<CreateTagsResponse><return>true</return></CreateTagsResponse>");
  for (int i = 0; i < 3; ++i) w.answer_sqs("<DeleteMessageResponse/>");
  auto listed = notices(w.provider->list_instances());
  EXPECT_TRUE(listed["i-1"]);
  EXPECT_FALSE(listed["i-2"]);
  ASSERT_EQ(w.ec2_http.sent.size(), 2u);
  auto tag = testing::form_fields(w.ec2_http.sent[1].body);
  EXPECT_EQ(tag["Action"], "CreateTags");
  EXPECT_EQ(tag["ResourceId.1"], "i-1");
  EXPECT_EQ(tag["Tag.1.Key"], "fitscale.io%2Finterruption-notice");
  EXPECT_EQ(tag["Tag.1.Value"], "spot-interruption%2C2026-11-30T01%3A00%3A00Z");
  int deleted = 0;
  for (const auto& s : w.sqs_http.sent)
    deleted += testing::form_fields(s.body)["Action"] == "DeleteMessage";
  EXPECT_EQ(deleted, 3);  // the foreign event and the non-event too: nobody else reads them
  ASSERT_EQ(w.reports.size(), 1u);
  ASSERT_EQ(w.reports[0].marked.size(), 1u);
  ASSERT_EQ(w.reports[0].foreign.size(), 1u);
  EXPECT_EQ(w.reports[0].foreign[0].instance_id, "i-other");
  EXPECT_EQ(w.reports[0].ignored, 1);

  // Next loop: the queue is empty, the instance is still marked.
  w.answer_ec2(instances_answer({{"i-1", ""}, {"i-2", ""}}));
  w.answer_sqs(receive_answer({}));
  EXPECT_TRUE(notices(w.provider->list_instances())["i-1"]);
  EXPECT_EQ(w.reports.size(), 1u);  // nothing new to say
}

TEST(AwsInterruptionProvider, TheTagAloneMarksAfterARestart) {
  World w;
  w.answer_ec2(instances_answer({{"i-1", "spot-interruption,2026-11-30T01:00:00Z"}, {"i-2", ""}}));
  w.answer_sqs(receive_answer({}));
  auto listed = notices(w.provider->list_instances());
  EXPECT_TRUE(listed["i-1"]);
  EXPECT_FALSE(listed["i-2"]);
}

TEST(AwsInterruptionProvider, DryRunMarksButNeitherTagsNorDeletes) {
  World w(/*consume=*/false);
  w.answer_ec2(instances_answer({{"i-1", ""}}));
  w.answer_sqs(receive_answer({spot_warning("i-1")}));
  EXPECT_TRUE(notices(w.provider->list_instances())["i-1"]);
  EXPECT_EQ(w.ec2_http.sent.size(), 1u);  // DescribeInstances only
  EXPECT_EQ(w.sqs_http.sent.size(), 1u);  // ReceiveMessage only
}

TEST(AwsInterruptionProvider, AnUnreadableQueueDoesNotStopTheListing) {
  World w;
  w.answer_ec2(instances_answer({{"i-1", ""}}));
  w.sqs_http.answers.push_back(
      {403,
       "<ErrorResponse><Error><Code>AccessDenied</Code><Message>no sqs:ReceiveMessage"
       "</Message></Error></ErrorResponse>",
       ""});
  auto listed = w.provider->list_instances();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_FALSE(listed[0].interruption_notice);
  ASSERT_EQ(w.reports.size(), 1u);
  EXPECT_NE(w.reports[0].error.find("AccessDenied"), std::string::npos);
}

}  // namespace
}  // namespace fitscale::aws
