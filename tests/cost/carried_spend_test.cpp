// A new leader's ledger with the spend the last leader recorded (CarriedSpendLedger) and the
// alerts it sent (CarriedAlertLog): nothing forgotten, nothing counted twice.
#include <gtest/gtest.h>

#include "cost/carried_alert_log.h"
#include "cost/carried_spend_ledger.h"
#include "cost/memory_ledger.h"

namespace fitscale {
namespace {

constexpr Time kMidnight = 1767571200;  // 2026-01-05T00:00:00Z
constexpr Micros kPrice = 3'600'000;    // $3.60/h: $0.001 a second

NodeCharge node(const std::string& id, const std::string& owner) {
  NodeCharge n;
  n.node_id = id;
  n.instance_type = "p3.2xlarge";
  n.micros_per_hour = kPrice;
  n.allocatable.cpu_milli = 8000;
  n.allocatable.memory_bytes = 61LL << 30;
  n.allocatable.gpus = 1;
  n.owner_namespace = owner;
  n.owner_job = owner + "/job";
  return n;
}

// The old leader: node A ran 08:00-09:00 and stopped; node B has run since 09:00. It recorded
// at 10:00 what its ledger said; the new leader starts at 10:01 with a fresh ledger.
struct Handover {
  Time t8 = kMidnight + 8 * 3600;
  Time t9 = kMidnight + 9 * 3600;
  Time t10 = kMidnight + 10 * 3600;
  Time now = t10 + 60;

  RecordedSpend recorded() const {
    MemoryLedger old;
    old.node_started(node("a", "team"), t8);
    old.node_stopped("a", t9);
    old.node_started(node("b", "team"), t9);
    const NamespaceSpend s = old.spend(t10).at("team");
    RecordedSpend r;
    r.day_start = kMidnight;
    r.month_start = utc_month_start(kMidnight);
    r.spent_today = s.spent_today;
    r.spent_this_month = s.spent_this_month;
    r.committed_micros_per_hour = s.committed_micros_per_hour;
    r.recorded_at = t10;
    return r;
  }
};

TEST(CarriedSpendLedger, FreshLedgerReMeteringRunningNodesCountsEachSecondOnce) {
  Handover h;
  MemoryLedger fresh;
  CarriedSpendLedger ledger(fresh);
  ledger.carry_from({{"team", h.recorded()}});
  // The controller adopts B from its launch, as after every restart.
  ledger.node_started(node("b", "team"), h.t9);
  // True spend: A's hour and B's 61 minutes, $3.60 + $3.66, not B's first hour twice.
  EXPECT_EQ(ledger.spend(h.now).at("team").spent_today, 3'600'000 + 3'660'000);
  EXPECT_EQ(ledger.spend(h.now).at("team").spent_this_month, 3'600'000 + 3'660'000);
  // And it keeps growing with B.
  EXPECT_EQ(ledger.spend(h.now + 60).at("team").spent_today, 3'600'000 + 3'720'000);
}

TEST(CarriedSpendLedger, SurvivingLedgerThatKnowsEverythingCarriesNothing) {
  Handover h;
  MemoryLedger same;  // as a SqliteLedger reopened: A's hour and B are in it
  same.node_started(node("a", "team"), h.t8);
  same.node_stopped("a", h.t9);
  same.node_started(node("b", "team"), h.t9);
  CarriedSpendLedger ledger(same);
  ledger.carry_from({{"team", h.recorded()}});
  EXPECT_EQ(ledger.spend(h.now).at("team").spent_today, same.spend(h.now).at("team").spent_today);
  EXPECT_TRUE(ledger.carried().empty());
}

TEST(CarriedSpendLedger, NodeThatVanishedWhileNobodyLedIsNotForgotten) {
  Handover h;
  MemoryLedger fresh;  // B is gone too: nothing to adopt
  CarriedSpendLedger ledger(fresh);
  ledger.carry_from({{"team", h.recorded()}});
  // The record ($7.20 at 10:00) and B's minute until now at the committed rate, at least.
  EXPECT_EQ(ledger.spend(h.now).at("team").spent_today, 7'200'000 + 60'000);
}

TEST(CarriedSpendLedger, RecordOfAnotherDayCarriesOnlyTheMonth) {
  Handover h;
  MemoryLedger fresh;
  CarriedSpendLedger ledger(fresh);
  ledger.carry_from({{"team", h.recorded()}});
  const Time tomorrow = kMidnight + 86400 + 3600;
  const NamespaceSpend s = ledger.spend(tomorrow).at("team");
  EXPECT_EQ(s.spent_today, 0);
  // The month holds the record and what ran after it at the committed rate, up to now.
  EXPECT_EQ(s.spent_this_month, 7'200'000 + cost_for(kPrice, tomorrow - h.t10));
}

TEST(CarriedSpendLedger, SettledOnceThenFollowsTheDay) {
  Handover h;
  MemoryLedger fresh;
  CarriedSpendLedger ledger(fresh);
  ledger.carry_from({{"team", h.recorded()}});
  ledger.node_started(node("b", "team"), h.t9);
  const Micros first = ledger.spend(h.now).at("team").spent_today;
  ledger.node_stopped("b", h.now);
  // Stopping B later does not unsettle what was carried.
  EXPECT_EQ(ledger.spend(h.now + 600).at("team").spent_today, first);
  // The next day starts from zero.
  EXPECT_EQ(ledger.spend(kMidnight + 86400 + 10).count("team") == 0 ||
                ledger.spend(kMidnight + 86400 + 10).at("team").spent_today == 0,
            true);
}

TEST(CarriedAlertLog, StatusEntriesRoundTripAndCountAsSent) {
  MemoryAlertLog inner;
  CarriedAlertLog log(inner);
  const AlertKey day{"team", "day", kMidnight, 80};
  const AlertKey month{"team", "month", utc_month_start(kMidnight), 100};
  EXPECT_EQ(alert_status_entry(day), "day/2026-01-05/80");
  EXPECT_EQ(alert_status_entry(month), "month/2026-01/100");
  ASSERT_EQ(parse_alert_status_entry("team", "day/2026-01-05/80"), day);
  ASSERT_EQ(parse_alert_status_entry("team", "month/2026-01/100"), month);
  for (const char* bad : {"", "day", "week/2026-01-05/80", "day/2026-1-5/80", "day/2026-01-05/x",
                          "day/2026-01-05/0", "month/2026-01-05/50"}) {
    EXPECT_FALSE(parse_alert_status_entry("team", bad)) << bad;
  }
  log.carry(day);
  EXPECT_TRUE(log.was_sent(day));
  EXPECT_FALSE(inner.was_sent(day));
  log.record_sent(month, kMidnight, "text");
  EXPECT_TRUE(inner.was_sent(month));
  EXPECT_EQ(log.sent_for("team", kMidnight, utc_month_start(kMidnight)).size(), 2u);
  EXPECT_TRUE(log.sent_for("team", kMidnight + 86400, utc_month_start(kMidnight)).size() == 1);
  EXPECT_TRUE(log.sent_for("other", kMidnight, utc_month_start(kMidnight)).empty());
}

}  // namespace
}  // namespace fitscale
