// BudgetSync: the budgets that apply with Budget objects, what a new term starts from, and the
// status the leader writes (through a fake BudgetStore).
#include "controller/budget_sync.h"

#include <gtest/gtest.h>

#include "cost/memory_ledger.h"

namespace fitscale {
namespace {

constexpr Time kMidnight = 1767571200;  // 2026-01-05T00:00:00Z

class FakeBudgetStore final : public BudgetStore {
 public:
  bool synced() const override { return true; }
  std::uint64_t generation() const override { return generation_; }
  std::vector<BudgetObject> objects() const override { return objects_; }
  std::vector<BadObject> bad_objects() const override { return bad_; }
  std::string write_status(const BudgetObject& of, const BudgetStatus& status) override {
    if (!fail_with.empty()) return fail_with;
    writes.emplace_back(of.key(), status);
    return "";
  }
  void set(std::vector<BudgetObject> objects, std::vector<BadObject> bad = {}) {
    objects_ = std::move(objects);
    bad_ = std::move(bad);
    ++generation_;
  }
  std::string fail_with;
  std::vector<std::pair<std::string, BudgetStatus>> writes;

 private:
  std::uint64_t generation_ = 1;
  std::vector<BudgetObject> objects_;
  std::vector<BadObject> bad_;
};

BudgetObject team_budget(double usd_per_day) {
  BudgetObject o;
  o.ns = "team";
  o.name = "caps";
  o.uid = "u-1";
  o.caps.usd_per_day = usd_per_day;
  return o;
}

NodeCharge node(const std::string& id) {
  NodeCharge n;
  n.node_id = id;
  n.micros_per_hour = 3'600'000;
  n.allocatable.gpus = 1;
  n.owner_namespace = "team";
  return n;
}

struct Fixture {
  FakeBudgetStore store;
  MemoryLedger inner;
  CarriedSpendLedger ledger{inner};
  MemoryAlertLog inner_alerts;
  CarriedAlertLog alerts{inner_alerts};
  BudgetSync sync{store, safe_default_budgets(), ledger, &alerts};
  std::vector<std::pair<std::string, std::string>> problems;
  Fixture() {
    sync.on_problem(
        [this](const std::string& o, const std::string& e) { problems.emplace_back(o, e); });
  }
};

TEST(BudgetSync, ObjectsOverrideTheConfigAndChangesAreSeen) {
  Fixture f;
  f.store.set({team_budget(10)});
  bool changed = false;
  EXPECT_EQ(f.sync.budgets(changed).for_namespace("team").usd_per_day, 10.0);
  EXPECT_TRUE(changed);
  f.sync.budgets(changed);
  EXPECT_FALSE(changed);
  f.store.set({team_budget(20)});
  EXPECT_EQ(f.sync.budgets(changed).for_namespace("team").usd_per_day, 20.0);
  EXPECT_TRUE(changed);
  // Deleted: the config's (here the safe defaults) apply again.
  f.store.set({});
  EXPECT_EQ(f.sync.budgets(changed).for_namespace("team").usd_per_day, 20000.0);
  EXPECT_TRUE(changed);
}

TEST(BudgetSync, BadObjectsAreReportedOnceByNameAndTheOthersApply) {
  Fixture f;
  f.store.set({team_budget(10)},
              {BadObject{"other/caps", "spec.usdPerDay: must be a number", "", ""}});
  bool changed = false;
  EXPECT_EQ(f.sync.budgets(changed).for_namespace("team").usd_per_day, 10.0);
  f.store.set({team_budget(10)},
              {BadObject{"other/caps", "spec.usdPerDay: must be a number", "", ""}});
  f.sync.budgets(changed);
  ASSERT_EQ(f.problems.size(), 1u);
  EXPECT_EQ(f.problems[0].first, "Budget other/caps");
}

// A bad Budget gets a Warning Event on itself naming the field, from the leader's after-loop
// write, once per term; the good one applies.
TEST(BudgetSync, BadObjectsGetAnInvalidBudgetEventOnThemselvesOncePerTerm) {
  Fixture f;
  std::vector<std::pair<ObjectRef, std::string>> events;
  f.sync.on_event([&](const ObjectRef& about, const std::string& reason, const std::string& m) {
    EXPECT_EQ(reason, "InvalidBudget");
    events.emplace_back(about, m);
  });
  BudgetObject dup = team_budget(30);
  dup.name = "more";
  dup.uid = "u-3";
  f.store.set(
      {team_budget(10), dup},
      {BadObject{"other/caps", "Budget other/caps: spec.usdPerDay: must be a number", "u-2", "7"}});
  bool changed = false;
  EXPECT_EQ(f.sync.budgets(changed).for_namespace("team").usd_per_day, 10.0);
  EXPECT_TRUE(events.empty());  // only the leader's write_statuses tells
  f.sync.write_statuses(kMidnight);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].first.kind, "Budget");
  EXPECT_EQ(events[0].first.api_version, "fitscale.io/v1alpha1");
  EXPECT_EQ(events[0].first.ns, "other");
  EXPECT_EQ(events[0].first.name, "caps");
  EXPECT_EQ(events[0].first.uid, "u-2");
  EXPECT_EQ(events[0].second,
            "spec.usdPerDay: must be a number; the other Budgets and the config file's budgets "
            "still apply");
  EXPECT_EQ(events[1].first.name, "more");
  EXPECT_EQ(events[1].first.uid, "u-3");
  EXPECT_NE(events[1].second.find("already has Budget caps"), std::string::npos)
      << events[1].second;
  f.sync.write_statuses(kMidnight + 10);
  EXPECT_EQ(events.size(), 2u);
  f.sync.start_term();  // a new leader tells again
  f.sync.write_statuses(kMidnight + 20);
  EXPECT_EQ(events.size(), 4u);
}

TEST(BudgetSync, StatusHoldsSpendAndAlertsAndIsWrittenWhenItChanges) {
  Fixture f;
  f.store.set({team_budget(10)});
  f.sync.start_term();
  f.ledger.node_started(node("a"), kMidnight + 3600);
  f.alerts.record_sent(AlertKey{"team", "day", kMidnight, 50}, kMidnight + 3700, "text");
  f.sync.write_statuses(kMidnight + 7200);
  ASSERT_EQ(f.store.writes.size(), 1u);
  const BudgetStatus& s = f.store.writes[0].second;
  EXPECT_EQ(f.store.writes[0].first, "team/caps");
  EXPECT_EQ(s.day, "2026-01-05");
  EXPECT_EQ(s.month, "2026-01");
  EXPECT_EQ(s.spent_today, 3'600'000);
  EXPECT_EQ(s.committed_micros_per_hour, 3'600'000);
  EXPECT_EQ(s.alerts_sent, std::vector<std::string>{"day/2026-01-05/50"});
  EXPECT_EQ(s.updated_at, kMidnight + 7200);
  // The node stops: committed $/h changed, written. Then nothing new but the time: not written
  // again. A node starts: written.
  f.ledger.node_stopped("a", kMidnight + 7200);
  f.sync.write_statuses(kMidnight + 7200);
  ASSERT_EQ(f.store.writes.size(), 2u);
  EXPECT_EQ(f.store.writes[1].second.committed_micros_per_hour, 0);
  f.sync.write_statuses(kMidnight + 7300);
  EXPECT_EQ(f.store.writes.size(), 2u);
  f.ledger.node_started(node("b"), kMidnight + 7300);
  f.sync.write_statuses(kMidnight + 7400);
  EXPECT_EQ(f.store.writes.size(), 3u);
  // A failed write is reported (once) and retried.
  f.store.fail_with = "HTTP 403";
  f.sync.write_statuses(kMidnight + 7500);
  f.sync.write_statuses(kMidnight + 7600);
  EXPECT_EQ(f.problems.size(), 1u);
  f.store.fail_with.clear();
  f.sync.write_statuses(kMidnight + 7700);
  EXPECT_EQ(f.store.writes.size(), 4u);
}

TEST(BudgetSync, NewTermStartsFromTheStatus) {
  Fixture f;
  BudgetObject o = team_budget(10);
  BudgetStatus st;
  st.day = "2026-01-05";
  st.month = "2026-01";
  st.spent_today = 6'000'000;
  st.spent_this_month = 9'000'000;
  st.alerts_sent = {"day/2026-01-05/50", "not-an-entry"};
  st.updated_at = kMidnight + 3600;
  o.status = st;
  f.store.set({o});
  f.sync.start_term();
  const Time now = kMidnight + 3700;
  const NamespaceSpend s = f.ledger.spend(now).at("team");
  EXPECT_EQ(s.spent_today, 6'000'000);
  EXPECT_EQ(s.spent_this_month, 9'000'000);
  EXPECT_TRUE(f.alerts.was_sent(AlertKey{"team", "day", kMidnight, 50}));
  EXPECT_FALSE(f.alerts.was_sent(AlertKey{"team", "day", kMidnight, 80}));
  // The first write keeps the spend and drops the entry this build does not read; then nothing
  // changes but the time, and nothing is written.
  f.sync.write_statuses(now);
  ASSERT_EQ(f.store.writes.size(), 1u);
  EXPECT_EQ(f.store.writes[0].second.spent_today, 6'000'000);
  EXPECT_EQ(f.store.writes[0].second.alerts_sent, std::vector<std::string>{"day/2026-01-05/50"});
  f.sync.write_statuses(now + 60);
  EXPECT_EQ(f.store.writes.size(), 1u);
}

}  // namespace
}  // namespace fitscale
