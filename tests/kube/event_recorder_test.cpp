// The event writer off the loop's critical path: record() queues, a worker writes with a rate
// limit; repeats are PATCHed; a full queue drops and counts instead of blocking the loop.
#include "kube/event_recorder.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "fake_api_server.h"
#include "test_support.h"

namespace fitscale {
namespace {

using testing::FakeApiServer;
using testing::ManualClock;

EventRecorderOptions options() {
  EventRecorderOptions o;
  o.instance = "host-1";
  return o;
}

TEST(EventRecorder, RepeatsArePatchedAndCountedNotPostedAgain) {
  FakeApiServer server;
  ManualClock clock;
  EventRecorder r(testing::config_for(server.url()), clock, options());
  std::vector<std::string> outcomes;
  std::mutex mu;
  r.set_outcome([&](const char* o) {
    std::lock_guard lock(mu);
    outcomes.push_back(o);
  });
  r.start();
  const ObjectRef pod{"Pod", "team-a", "train-0", "uid-1", "42"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(r.record(pod, "Warning", "FailedDecode", "bad quantity"));
    ASSERT_TRUE(r.flush(std::chrono::seconds(20)));
    clock.advance(10);
  }
  EXPECT_EQ(server.count("POST", "/api/v1/namespaces/team-a/events"), 1);
  EXPECT_EQ(server.count("PATCH", "/api/v1/namespaces/team-a/events/"), 2);
  auto events = server.events();
  ASSERT_EQ(events.size(), 1u);
  const auto& ev = events.begin()->second;
  EXPECT_EQ(ev["count"], 3);
  EXPECT_EQ(ev["involvedObject"]["uid"], "uid-1");
  EXPECT_EQ(ev["involvedObject"]["resourceVersion"], "42");
  EXPECT_NE(ev["firstTimestamp"], ev["lastTimestamp"]);
  EXPECT_EQ(r.stats().created.load(), 1u);
  EXPECT_EQ(r.stats().updated.load(), 2u);
  std::lock_guard lock(mu);
  EXPECT_EQ(outcomes, (std::vector<std::string>{"created", "updated", "updated"}));
}

TEST(EventRecorder, AFullQueueDropsAndCountsInsteadOfWaiting) {
  FakeApiServer server;
  ManualClock clock;
  EventRecorderOptions o = options();
  o.queue_limit = 3;
  EventRecorder r(testing::config_for(server.url()), clock, o);
  // The worker is held inside its first write, as it would be by a slow API server.
  std::mutex mu;
  std::condition_variable cv;
  bool release = false, holding = false;
  r.set_gate([&] {
    std::unique_lock lock(mu);
    holding = true;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
    return true;
  });
  r.start();
  auto pod = [](int i) { return ObjectRef{"Pod", "a", "p" + std::to_string(i), "", ""}; };
  EXPECT_TRUE(r.record(pod(0), "Normal", "X", "m"));
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return holding; }));
  }
  for (int i = 1; i <= 3; ++i) EXPECT_TRUE(r.record(pod(i), "Normal", "X", "m"));
  EXPECT_FALSE(r.record(pod(4), "Normal", "X", "m"));
  EXPECT_EQ(r.stats().dropped_full.load(), 1u);
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  ASSERT_TRUE(r.flush(std::chrono::seconds(20)));
  EXPECT_EQ(server.events().size(), 4u);
}

TEST(EventRecorder, WritesAreRateLimited) {
  FakeApiServer server;
  ManualClock clock;
  EventRecorderOptions o = options();
  o.writes_per_second = 1;
  o.write_burst = 2;
  EventRecorder r(testing::config_for(server.url()), clock, o);
  double now = 0;
  std::mutex mu;
  r.set_monotonic([&] {
    std::lock_guard lock(mu);
    return now;
  });
  r.start();
  for (int i = 0; i < 4; ++i)
    r.record({"Pod", "a", "p" + std::to_string(i), "", ""}, "Normal", "X", "m");
  // The burst goes at once; the rest waits for time to pass on the monotonic reading.
  ASSERT_TRUE(testing::eventually([&] { return server.events().size() == 2; }));
  EXPECT_FALSE(r.flush(std::chrono::milliseconds(300)));
  EXPECT_EQ(server.events().size(), 2u);
  {
    std::lock_guard lock(mu);
    now = 100;  // a long quiet spell refills the bucket up to its burst, no further
  }
  ASSERT_TRUE(r.flush(std::chrono::seconds(20)));
  EXPECT_EQ(server.events().size(), 4u);
}

TEST(EventRecorder, AFailedWriteIsCountedAndWarnedNotRetriedForever) {
  ManualClock clock;
  KubeConfig config = testing::config_for("http://127.0.0.1:1");  // nothing listens there
  EventRecorderOptions o = options();
  o.client.connect_timeout_s = 2;
  EventRecorder r(config, clock, o);
  std::vector<std::string> warnings;
  std::mutex mu;
  r.set_warn([&](const std::string& w) {
    std::lock_guard lock(mu);
    warnings.push_back(w);
  });
  r.start();
  r.record({"Pod", "a", "p", "", ""}, "Normal", "X", "m");
  r.record({"Pod", "a", "q", "", ""}, "Normal", "X", "m");
  ASSERT_TRUE(r.flush(std::chrono::seconds(30)));
  EXPECT_EQ(r.stats().failed.load(), 2u);
  std::lock_guard lock(mu);
  ASSERT_EQ(warnings.size(), 1u);  // the first, then every hundredth
  EXPECT_NE(warnings[0].find("event X on Pod p not written"), std::string::npos);
}

}  // namespace
}  // namespace fitscale
