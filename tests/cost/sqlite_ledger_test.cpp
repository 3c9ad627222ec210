#include "cost/sqlite_ledger.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <random>

#include "cost/memory_ledger.h"
#include "model/error.h"

namespace fitscale {
namespace {

constexpr Time kStart = 1767571200;  // 2026-01-05T00:00:00Z

std::string temp_path(const std::string& name) {
  const std::string p = testing::TempDir() + "fitscale-" + std::to_string(getpid()) + "-" + name;
  std::remove(p.c_str());
  std::remove((p + "-wal").c_str());
  std::remove((p + "-shm").c_str());
  return p;
}

Resources res(std::int64_t cpu_milli, std::int64_t mem_gib, std::int64_t gpus) {
  Resources r;
  r.cpu_milli = cpu_milli;
  r.memory_bytes = mem_gib << 30;
  r.gpus = gpus;
  return r;
}

// One change to a ledger, so the same history can be replayed into several.
struct Event {
  enum Kind { Start, Stop, Pods } kind;
  Time t;
  NodeCharge node;
  std::vector<PodUsage> pods;
};

std::vector<Event> random_history(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<std::string> ns = {"vc-a", "vc-b", "vc-c"};
  std::vector<Event> events;
  for (int i = 0; i < 25; ++i) {
    NodeCharge n;
    n.node_id = "i-" + std::to_string(i);
    n.instance_type = i % 2 ? "p3.16xlarge" : "p3.8xlarge";
    n.capacity_type = i % 3 ? CapacityType::Spot : CapacityType::OnDemand;
    n.micros_per_hour = 1'000'000 + static_cast<Micros>(rng() % 30'000'000);
    n.allocatable = res(63'000, 480, 8);
    n.owner_namespace = ns[rng() % 3];
    n.owner_job = n.owner_namespace + "/job" + std::to_string(i);
    Time t = kStart + static_cast<Time>(rng() % 150'000);
    events.push_back({Event::Start, t, n, {}});
    const int changes = static_cast<int>(rng() % 8);
    for (int c = 0; c < changes; ++c) {
      t += static_cast<Time>(rng() % 20'000);
      std::vector<PodUsage> pods;
      for (int p = 0; p < static_cast<int>(rng() % 4); ++p) {
        const std::string& pns = ns[rng() % 3];
        const std::int64_t g = 1 + static_cast<std::int64_t>(rng() % 4);
        pods.push_back(PodUsage{pns + "/w-" + std::to_string(c) + "-" + std::to_string(p), pns,
                                pns + "/j" + std::to_string(p), res(6000 * g, 40 * g, g)});
      }
      events.push_back({Event::Pods, t, n, pods});
    }
    events.push_back({Event::Stop, t + 1 + static_cast<Time>(rng() % 30'000), n, {}});
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.t < b.t; });
  return events;
}

void apply(Ledger& l, const Event& e) {
  switch (e.kind) {
    case Event::Start:
      l.node_started(e.node, e.t);
      break;
    case Event::Stop:
      l.node_stopped(e.node.node_id, e.t);
      break;
    case Event::Pods:
      l.pods_changed(e.node.node_id, e.pods, e.t);
      break;
  }
}

void expect_same(const cost::CostReport& a, const cost::CostReport& b) {
  EXPECT_EQ(a.total, b.total);
  EXPECT_EQ(a.idle, b.idle);
  ASSERT_EQ(a.by_job.size(), b.by_job.size());
  for (std::size_t i = 0; i < a.by_job.size(); ++i) {
    EXPECT_EQ(a.by_job[i].key, b.by_job[i].key);
    EXPECT_EQ(a.by_job[i].micros, b.by_job[i].micros);
  }
  ASSERT_EQ(a.by_namespace.size(), b.by_namespace.size());
  for (std::size_t i = 0; i < a.by_namespace.size(); ++i)
    EXPECT_EQ(a.by_namespace[i].micros, b.by_namespace[i].micros);
}

std::int64_t query_int(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::int64_t v = -1;
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

TEST(SqliteLedger, RecordsWhatTheMemoryLedgerRecords) {
  const std::string path = temp_path("same.db");
  MemoryLedger mem;
  SqliteLedger sql(path);
  for (const Event& e : random_history(7)) {
    apply(mem, e);
    apply(sql, e);
  }
  const Time end = kStart + 30 * 86400;
  expect_same(mem.report(kStart, end), sql.report(kStart, end));
  expect_same(mem.report(kStart + 40'000, kStart + 90'000),
              sql.report(kStart + 40'000, kStart + 90'000));
  EXPECT_GT(sql.report(kStart, end).total, 0);
  const auto ms = mem.spend(kStart + 86400 + 5);
  const auto ss = sql.spend(kStart + 86400 + 5);
  ASSERT_EQ(ms.size(), ss.size());
  for (const auto& [ns, s] : ms) {
    EXPECT_EQ(s.spent_today, ss.at(ns).spent_today) << ns;
    EXPECT_EQ(s.spent_this_month, ss.at(ns).spent_this_month) << ns;
  }
  // In the file itself: every closed segment's charges add up to its node cost.
  EXPECT_EQ(
      query_int(
          path,
          "SELECT COUNT(*) FROM segments s LEFT JOIN (SELECT segment_id, SUM(micros) m FROM "
          "charges "
          "GROUP BY segment_id) c ON c.segment_id = s.id WHERE s.node_micros != COALESCE(c.m, 0)"),
      0);
  EXPECT_EQ(query_int(path, "SELECT SUM(micros) FROM charges"), mem.report(kStart, end).total);
}

TEST(SqliteLedger, AReopenedLedgerCarriesOnAsIfNeverStopped) {
  const std::string path = temp_path("reopen.db");
  const auto history = random_history(11);
  MemoryLedger mem;
  for (const Event& e : history) apply(mem, e);

  auto sql = std::make_unique<SqliteLedger>(path);
  std::size_t i = 0;
  for (; i < history.size() / 2; ++i) apply(*sql, history[i]);
  const auto open_before = sql->open_nodes();
  ASSERT_FALSE(open_before.empty());
  sql.reset();  // the process goes away with nodes open

  sql = std::make_unique<SqliteLedger>(path);
  EXPECT_EQ(sql->open_nodes(), open_before);
  // The restarted controller reports the live nodes again with their launch times.
  for (std::size_t k = 0; k < i; ++k) {
    if (history[k].kind == Event::Start) sql->node_started(history[k].node, history[k].t);
  }
  for (; i < history.size(); ++i) apply(*sql, history[i]);
  const Time end = kStart + 30 * 86400;
  expect_same(mem.report(kStart, end), sql->report(kStart, end));
  EXPECT_TRUE(sql->open_nodes().empty());
  // What was charged before the restart still counts in the spend to date.
  EXPECT_EQ(sql->spent_to_date(end), mem.spent_to_date(end));
}

TEST(SqliteLedger, AlertsAreRememberedAcrossRestarts) {
  const std::string path = temp_path("alerts.db");
  const AlertKey key{"research-a", "day", kStart, 80};
  {
    SqliteLedger l(path);
    EXPECT_FALSE(l.was_sent(key));
    l.record_sent(key, kStart + 100, "research-a at 80% of usdPerDay");
  }
  SqliteLedger l(path);
  EXPECT_TRUE(l.was_sent(key));
  EXPECT_FALSE(l.was_sent(AlertKey{"research-a", "day", kStart + 86400, 80}));
}

TEST(SqliteLedger, ReadOnlyRefusesAFileThatIsNoLedger) {
  const std::string path = temp_path("not-a-ledger.db");
  std::ofstream(path) << "hello";
  EXPECT_THROW(SqliteLedger(path, SqliteLedger::Mode::ReadOnly), InputError);
  EXPECT_THROW(SqliteLedger(temp_path("missing.db"), SqliteLedger::Mode::ReadOnly), InputError);
}

TEST(SqliteLedger, CreateNewRefusesAnExistingFile) {
  const std::string path = temp_path("fresh.db");
  { SqliteLedger first(path, SqliteLedger::Mode::CreateNew); }
  EXPECT_THROW(SqliteLedger(path, SqliteLedger::Mode::CreateNew), InputError);
  SqliteLedger again(path);  // a controller restarting on its own ledger is fine
}

}  // namespace
}  // namespace fitscale
