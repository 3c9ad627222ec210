// client-go's EventCorrelator semantics, which operators know from every other controller:
// repeats are counted on one event, many similar events are combined, one object cannot flood.
#include "kube/event_correlator.h"

#include <gtest/gtest.h>

namespace fitscale {
namespace {

constexpr Time kT = 1'800'000'000;

KubeEvent about(const std::string& pod, const std::string& reason, const std::string& message) {
  KubeEvent e;
  e.about = ObjectRef{"Pod", "team-a", pod, "uid-" + pod, "7"};
  e.type = "Warning";
  e.reason = reason;
  e.message = message;
  e.component = "fitscale";
  e.instance = "host-1";
  e.ns = "team-a";
  return e;
}

TEST(EventCorrelator, ARepeatUpdatesTheEventItSentWithItsCount) {
  EventCorrelator c;
  Correlated first = c.correlate(about("p", "BudgetRefused", "needs $40/h"), kT);
  ASSERT_FALSE(first.skip);
  EXPECT_FALSE(first.update);
  EXPECT_EQ(first.event.count, 1);
  EXPECT_EQ(first.event.name.rfind("p.", 0), 0u);
  c.sent(first.event);

  Correlated again = c.correlate(about("p", "BudgetRefused", "needs $40/h"), kT + 30);
  EXPECT_TRUE(again.update);
  EXPECT_EQ(again.event.name, first.event.name);
  EXPECT_EQ(again.event.count, 2);
  EXPECT_EQ(again.event.first, kT);
  EXPECT_EQ(again.event.last, kT + 30);

  // Another message, another object, another reason: new events.
  EXPECT_FALSE(c.correlate(about("p", "BudgetRefused", "needs $50/h"), kT + 31).update);
  EXPECT_FALSE(c.correlate(about("q", "BudgetRefused", "needs $40/h"), kT + 31).update);
  EXPECT_FALSE(c.correlate(about("p", "FailedDecode", "needs $40/h"), kT + 31).update);
}

TEST(EventCorrelator, TenSimilarEventsAreCombinedIntoOne) {
  EventCorrelator c;
  std::string combined_name;
  for (int i = 0; i < 14; ++i) {
    Correlated r = c.correlate(about("p", "BudgetRefused", "spend " + std::to_string(i)), kT + i);
    ASSERT_FALSE(r.skip);
    if (i < 9) {
      EXPECT_FALSE(r.update) << i;
      EXPECT_EQ(r.event.message, "spend " + std::to_string(i));
    } else {
      // From the tenth distinct message on: one event, message prefixed, count growing.
      EXPECT_EQ(r.event.message, "(combined from similar events): spend " + std::to_string(i));
      if (i == 9) {
        EXPECT_FALSE(r.update);
        combined_name = r.event.name;
      } else {
        EXPECT_TRUE(r.update);
        EXPECT_EQ(r.event.name, combined_name);
        EXPECT_EQ(r.event.count, i - 8);
      }
    }
    c.sent(r.event);
  }
  // Ten minutes of quiet: the similar-events record starts over.
  Correlated later = c.correlate(about("p", "BudgetRefused", "spend 99"), kT + 14 + 601);
  EXPECT_EQ(later.event.message, "spend 99");
}

TEST(EventCorrelator, OneObjectGetsABurstOf25ThenOneEventPerFiveMinutes) {
  EventCorrelator c;
  int sent = 0;
  for (int i = 0; i < 40; ++i) {
    // Distinct reasons, so neither dedup nor aggregation hides what the filter does.
    Correlated r = c.correlate(about("p", "R" + std::to_string(i), "m"), kT);
    if (!r.skip) ++sent;
  }
  EXPECT_EQ(sent, 25);
  EXPECT_TRUE(c.correlate(about("p", "Late", "m"), kT + 299).skip);
  EXPECT_FALSE(c.correlate(about("p", "Later", "m"), kT + 301).skip);
  // Another object has its own bucket.
  EXPECT_FALSE(c.correlate(about("q", "R0", "m"), kT).skip);
}

TEST(EventCorrelator, AnEventTheServerLostIsCreatedAgain) {
  EventCorrelator c;
  Correlated first = c.correlate(about("p", "X", "m"), kT);
  c.sent(first.event);
  Correlated again = c.correlate(about("p", "X", "m"), kT + 1);
  ASSERT_TRUE(again.update);
  c.forget(again.event);
  EXPECT_FALSE(c.correlate(about("p", "X", "m"), kT + 2).update);
}

TEST(EventCorrelator, NamesAreValidAndUniqueForLongObjectNames) {
  EventCorrelator c;
  const std::string long_name(253, 'a');
  Correlated a = c.correlate(about(long_name, "X", "1"), kT);
  Correlated b = c.correlate(about(long_name, "Y", "1"), kT);
  EXPECT_LE(a.event.name.size(), 253u);
  EXPECT_NE(a.event.name, b.event.name);
}

TEST(LruMap, ForgetsTheLeastRecentlyUsedFirst) {
  LruMap<int> m(2);
  m.put("a", 1);
  m.put("b", 2);
  ASSERT_NE(m.find("a"), nullptr);  // a is now the most recent
  m.put("c", 3);
  EXPECT_EQ(m.find("b"), nullptr);
  EXPECT_NE(m.find("a"), nullptr);
  EXPECT_EQ(m.size(), 2u);
}

}  // namespace
}  // namespace fitscale
