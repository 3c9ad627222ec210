#include "cost/memory_ledger.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>

#include "cost/meter.h"

namespace fitscale {
namespace {

constexpr Time kMidnight = 1767571200;  // 2026-01-05T00:00:00Z, a Monday

Resources res(std::int64_t cpu_milli, std::int64_t mem_gib, std::int64_t gpus) {
  Resources r;
  r.cpu_milli = cpu_milli;
  r.memory_bytes = mem_gib << 30;
  r.gpus = gpus;
  return r;
}

NodeCharge node(const std::string& id, Micros per_hour, const std::string& owner) {
  NodeCharge n;
  n.node_id = id;
  n.instance_type = per_hour > 10'000'000 ? "p3.16xlarge" : "p3.2xlarge";
  n.micros_per_hour = per_hour;
  n.allocatable = res(63'000, 480, 8);
  n.owner_namespace = owner;
  n.owner_job = owner + "/launcher";
  return n;
}

PodUsage pod(const std::string& ns, const std::string& name, std::int64_t gpus) {
  return PodUsage{ns + "/" + name, ns, ns + "/" + name.substr(0, name.find('-')),
                  res(6'000 * gpus, 40 * gpus, gpus)};
}

// Property: random nodes with random pod changes; every micro-dollar a node costs from start to
// stop is attributed exactly once, in the segments and in the report.
TEST(MemoryLedger, AttributionSumsExactlyOverRandomHistories) {
  std::mt19937_64 rng(20261129);
  const std::vector<std::string> namespaces = {"vc-a", "vc-b", "vc-c", "vc-d"};
  for (int round = 0; round < 20; ++round) {
    MemoryLedger ledger;
    std::map<std::string, Micros> expected_node_cost;
    Micros expected_total = 0;
    for (int i = 0; i < 30; ++i) {
      const std::string id = "i-" + std::to_string(i);
      const Micros price = 100'000 + static_cast<Micros>(rng() % 40'000'000);
      const Time start = kMidnight - 50'000 + static_cast<Time>(rng() % 200'000);
      ledger.node_started(node(id, price, namespaces[rng() % 4]), start);
      Time t = start;
      const int changes = static_cast<int>(rng() % 12);
      for (int c = 0; c < changes; ++c) {
        t += static_cast<Time>(rng() % 20'000);
        std::vector<PodUsage> pods;
        const int n = static_cast<int>(rng() % 5);
        for (int p = 0; p < n; ++p) {
          pods.push_back(pod(namespaces[rng() % 4],
                             "job" + std::to_string(rng() % 3) + "-" + std::to_string(p),
                             1 + static_cast<std::int64_t>(rng() % 4)));
        }
        ledger.pods_changed(id, pods, t);
      }
      t += 1 + static_cast<Time>(rng() % 30'000);
      ledger.node_stopped(id, t);
      expected_node_cost[id] = cost::node_cost(price, start, start, t);
      expected_total += expected_node_cost[id];
    }
    std::map<std::string, Micros> node_sum, charge_sum;
    for (const auto& s : ledger.closed_segments()) {
      Micros charges = 0;
      for (const auto& c : s.charges) charges += c.micros;
      ASSERT_EQ(charges, s.node_micros) << "segment of " << s.node_id;
      ASSERT_EQ(utc_day_start(s.end - 1), utc_day_start(s.start)) << "segment crosses midnight";
      node_sum[s.node_id] += s.node_micros;
    }
    EXPECT_EQ(node_sum, expected_node_cost);
    const cost::CostReport all = ledger.report(0, kMidnight + 10 * 86400);
    EXPECT_EQ(all.total, expected_total);
    Micros by_ns = 0, by_job = 0, by_type = 0;
    for (const auto& l : all.by_namespace) by_ns += l.micros;
    for (const auto& l : all.by_job) by_job += l.micros;
    for (const auto& l : all.by_instance_type) by_type += l.micros;
    EXPECT_EQ(by_ns, expected_total);
    EXPECT_EQ(by_job, expected_total);
    EXPECT_EQ(by_type, expected_total);
    // Any window cuts segments but the pieces still add up: [a, m) + [m, b) = [a, b).
    const Time m = kMidnight + static_cast<Time>(rng() % 100'000) - 30'000;
    EXPECT_EQ(ledger.report(0, m).total + ledger.report(m, kMidnight + 10 * 86400).total,
              expected_total);
    // Spend to date (the simulator's report) agrees with the report per namespace.
    for (const Time at : {kMidnight + 10 * 86400}) {
      const auto to_date = ledger.spent_to_date(at);
      Micros sum = 0;
      for (const auto& l : ledger.report(0, at).by_namespace) {
        EXPECT_EQ(to_date.count(l.key) ? to_date.at(l.key) : 0, l.micros) << l.key << " at " << at;
        sum += l.micros;
      }
      Micros to_date_sum = 0;
      for (const auto& [ns, micros] : to_date) to_date_sum += micros;
      EXPECT_EQ(to_date_sum, sum);
    }
  }
}

// Admission reads spend() on every plan, metered to now over every open node; what it says must
// be what the same nodes' closed segments say once they stop at that moment. (Nodes opened
// today: a segment across midnight closes as one piece per day, and each piece's split may
// round a micro-dollar differently from the whole span's.)
TEST(MemoryLedger, OpenNodesSpendWhatTheyWouldOnceStopped) {
  std::mt19937_64 rng(20261130);
  const std::vector<std::string> namespaces = {"vc-a", "vc-b", "vc-c"};
  for (int round = 0; round < 20; ++round) {
    MemoryLedger open;
    const Time now = kMidnight + 86400 + 3600 + static_cast<Time>(rng() % 80'000);
    for (int i = 0; i < 25; ++i) {
      const std::string id = "i-" + std::to_string(i);
      const std::string owner = namespaces[rng() % namespaces.size()];
      Time t =
          now - 1 - static_cast<Time>(rng() % static_cast<std::uint64_t>(now - kMidnight - 86400));
      open.node_started(node(id, 100'000 + static_cast<Micros>(rng() % 40'000'000), owner), t);
      for (int c = static_cast<int>(rng() % 4); c > 0; --c) {
        t += static_cast<Time>(rng() % static_cast<std::uint64_t>(now - t));
        std::vector<PodUsage> pods;
        for (int p = static_cast<int>(rng() % 4); p > 0; --p) {
          // Mostly the owner's own pods (one namespace on the node), sometimes another's.
          const std::string& ns = rng() % 3 == 0 ? namespaces[rng() % namespaces.size()] : owner;
          pods.push_back(pod(ns, "job" + std::to_string(rng() % 3) + "-" + std::to_string(p),
                             1 + static_cast<std::int64_t>(rng() % 4)));
        }
        open.pods_changed(id, pods, t);
      }
    }
    MemoryLedger stopped = open;
    for (const auto& id : open.open_nodes()) stopped.node_stopped(id, now);
    const auto a = open.spend(now);
    const auto b = stopped.spend(now);
    ASSERT_EQ(a.size(), b.size()) << "round " << round;
    for (const auto& [ns, s] : b) {
      ASSERT_EQ(a.at(ns).spent_today, s.spent_today) << ns << " round " << round;
      ASSERT_EQ(a.at(ns).spent_this_month, s.spent_this_month) << ns << " round " << round;
    }
    EXPECT_EQ(open.spent_to_date(now), stopped.spent_to_date(now)) << "round " << round;
  }
}

TEST(MemoryLedger, DailySpendResetsAtUtcMidnightAndMonthlyDoesNot) {
  MemoryLedger ledger;
  // research-a's node, $36/h ($0.01/s), from 23:00 on Jan 5, fully used by its own pod.
  ledger.node_started(node("i-1", 36'000'000, "research-a"), kMidnight + 23 * 3600);
  ledger.pods_changed("i-1", {pod("research-a", "train-0", 8)}, kMidnight + 23 * 3600);

  auto before = ledger.spend(kMidnight + 86400 - 1);  // 23:59:59
  EXPECT_EQ(before["research-a"].spent_today, 3599 * 10'000);
  EXPECT_EQ(before["research-a"].spent_this_month, 3599 * 10'000);

  auto after = ledger.spend(kMidnight + 86400 + 60);  // 00:01 on Jan 6
  EXPECT_EQ(after["research-a"].spent_today, 60 * 10'000);
  EXPECT_EQ(after["research-a"].spent_this_month, 3660 * 10'000);
  // Spend to date knows no periods: the open segment metered to 00:01, across midnight.
  EXPECT_EQ(ledger.spent_to_date(kMidnight + 86400 + 60).at("research-a"), 3660 * 10'000);

  // Closing the segment later cuts it at midnight; the totals do not move.
  ledger.pods_changed("i-1", {}, kMidnight + 86400 + 60);
  auto closed = ledger.spend(kMidnight + 86400 + 60);
  EXPECT_EQ(closed["research-a"].spent_today, 60 * 10'000);
  EXPECT_EQ(closed["research-a"].spent_this_month, 3660 * 10'000);
  EXPECT_EQ(ledger.spent_to_date(kMidnight + 86400 + 60).at("research-a"), 3660 * 10'000);
  ASSERT_EQ(ledger.closed_segments().size(), 2u);
  EXPECT_EQ(ledger.closed_segments()[0].end, kMidnight + 86400);
}

TEST(MemoryLedger, MonthlySpendResetsOnTheFirst) {
  MemoryLedger ledger;
  const Time jan31 = 1769817600;                                        // 2026-01-31T00:00:00Z
  ledger.node_started(node("i-1", 3'600'000, "a"), jan31 + 12 * 3600);  // $3.60/h = $0.001/s
  EXPECT_EQ(ledger.spend(jan31 + 86399)["a"].spent_this_month, (12 * 3600 - 1) * 1000);
  ledger.node_stopped("i-1", jan31 + 86400 + 3600);  // 01:00 on Feb 1
  auto s = ledger.spend(jan31 + 86400 + 7200);
  EXPECT_EQ(s["a"].spent_today, 3'600'000);       // one hour on Feb 1
  EXPECT_EQ(s["a"].spent_this_month, 3'600'000);  // February started an hour ago
}

TEST(MemoryLedger, IdleTimeIsChargedToTheOwnerAndUsedTimeToThePods) {
  MemoryLedger ledger;
  ledger.node_started(node("i-1", 24'480'000, "research-a"), kMidnight);           // boots idle
  ledger.pods_changed("i-1", {pod("research-b", "eval-0", 4)}, kMidnight + 1800);  // half the GPUs
  ledger.node_stopped("i-1", kMidnight + 5400);
  const auto s = ledger.spend(kMidnight + 5400);
  // 30 min idle + 60 min half idle = 1h of the node for research-a; 30 min for research-b.
  EXPECT_EQ(s.at("research-a").spent_today, 24'480'000);
  EXPECT_EQ(s.at("research-b").spent_today, 12'240'000);
  const auto r = ledger.report(kMidnight, kMidnight + 86400);
  EXPECT_EQ(r.total, 36'720'000);
  // Idle is the half hour it stood empty; the half of it eval-0 left unused is not idle.
  EXPECT_EQ(r.idle, 12'240'000);
  EXPECT_EQ(r.unused, 12'240'000);
  ASSERT_FALSE(r.by_job.empty());
  EXPECT_EQ(r.by_job[0].key, "research-a/launcher");
  EXPECT_EQ(r.by_job[0].idle_micros, 12'240'000);
  EXPECT_EQ(r.by_job[0].unused_micros, 12'240'000);
}

TEST(MemoryLedger, CommittedCountsOpenNodesOfTheOwner) {
  MemoryLedger ledger;
  NodeCharge n = node("i-1", 24'480'000, "research-a");
  n.worst_case_end = kMidnight + 10 * 3600;
  ledger.node_started(n, kMidnight);
  ledger.node_started(node("i-2", 3'060'000, "research-a"), kMidnight);  // runtime unknown
  auto s = ledger.spend(kMidnight + 3600);
  EXPECT_EQ(s["research-a"].committed_micros_per_hour, 27'540'000);
  EXPECT_EQ(s["research-a"].committed_worst_case, 9 * 24'480'000 + 3'060'000);
  ledger.node_stopped("i-1", kMidnight + 3600);
  ledger.node_stopped("i-2", kMidnight + 3600);
  s = ledger.spend(kMidnight + 3600);
  EXPECT_EQ(s["research-a"].committed_micros_per_hour, 0);
  EXPECT_EQ(s["research-a"].committed_worst_case, 0);
  EXPECT_EQ(s["research-a"].spent_today, 27'540'000);
  EXPECT_TRUE(ledger.open_nodes().empty());
}

// Issue 12: committed $/h and worst case are counted by use, not by launcher. Half of
// research-a's node runs research-b's 4-GPU pod: research-b is committed for half its price and
// half its worst case, research-a (the owner) for the other, idle half.
TEST(MemoryLedger, CommittedIsTheAttributedShareOfEveryOpenNode) {
  MemoryLedger ledger;
  NodeCharge n = node("i-1", 24'480'000, "research-a");
  n.worst_case_end = kMidnight + 10 * 3600;
  ledger.node_started(n, kMidnight);
  ledger.pods_changed("i-1", {pod("research-b", "train-0", 4)}, kMidnight);
  auto s = ledger.spend(kMidnight + 3600);
  EXPECT_EQ(s["research-b"].committed_micros_per_hour, 12'240'000);
  EXPECT_EQ(s["research-a"].committed_micros_per_hour, 12'240'000);
  EXPECT_EQ(s["research-b"].committed_worst_case, 9 * 12'240'000);
  EXPECT_EQ(s["research-a"].committed_worst_case, 9 * 12'240'000);
}

// Issue 12, "worst case that rolls forward": a job past its worst case (10h here) is committed
// for another period, not as free.
TEST(MemoryLedger, AJobPastItsWorstCaseIsCommittedForAnotherPeriod) {
  MemoryLedger ledger;
  NodeCharge n = node("i-1", 3'600'000, "research-a");
  n.worst_case_end = kMidnight + 10 * 3600;
  ledger.node_started(n, kMidnight);
  auto s = ledger.spend(kMidnight + 11 * 3600);  // 1h past: committed until 20h
  EXPECT_EQ(s["research-a"].committed_worst_case, 9 * 3'600'000);
  s = ledger.spend(kMidnight + 10 * 3600);  // exactly at the end: the next period starts
  EXPECT_EQ(s["research-a"].committed_worst_case, 10 * 3'600'000);
  EXPECT_EQ(cost::rolled_worst_case_end(kMidnight, kMidnight + 100, kMidnight + 250),
            kMidnight + 300);
  EXPECT_EQ(cost::rolled_worst_case_end(kMidnight, 0, kMidnight + 250), kMidnight + 250 + 3600);
}

// A copied ledger meters on its own: stopping a node in the original must not change what the
// copy reports, even once the original is gone (the meter keeps pointers to its open nodes).
TEST(MemoryLedger, CopyMetersIndependentlyOfTheOriginal) {
  auto original = std::make_unique<MemoryLedger>();
  original->node_started(node("i-1", 3'600'000, "a"), kMidnight);
  original->node_started(node("i-2", 7'200'000, "b"), kMidnight);
  original->pods_changed("i-1", {pod("a", "job-0", 8)}, kMidnight + 60);
  const MemoryLedger copy = *original;
  original->node_stopped("i-1", kMidnight + 600);
  original.reset();
  // Reuses the freed memory: a copy still pointing into the original would read these.
  MemoryLedger other;
  other.node_started(node("i-1", 1'000, "c"), kMidnight);
  other.node_started(node("i-2", 1'000, "c"), kMidnight);

  const auto spend = copy.spend(kMidnight + 3600);
  EXPECT_EQ(spend.at("a").spent_today, 3'600'000);
  EXPECT_EQ(spend.at("b").spent_today, 7'200'000);
  EXPECT_EQ(spend.at("a").committed_micros_per_hour, 3'600'000);
  EXPECT_EQ(spend.at("b").committed_micros_per_hour, 7'200'000);
  EXPECT_EQ(spend.count("c"), 0U);
  EXPECT_EQ(copy.spent_to_date(kMidnight + 3600).at("b"), 7'200'000);
}

// Property: with nodes still open (empty, one pod, a full node, several pods), what spend to
// date meters for the open segments matches attribute()'s split in the report, per namespace.
TEST(MemoryLedger, OpenSegmentsMeterAsTheReportAttributes) {
  std::mt19937_64 rng(20261130);
  const std::vector<std::string> namespaces = {"vc-a", "vc-b", "vc-c"};
  for (int round = 0; round < 20; ++round) {
    MemoryLedger ledger;
    for (int i = 0; i < 20; ++i) {
      const std::string id = "i-" + std::to_string(i);
      const Time start = kMidnight + static_cast<Time>(rng() % 50'000);
      ledger.node_started(
          node(id, 100'000 + static_cast<Micros>(rng() % 40'000'000), namespaces[rng() % 3]),
          start);
      std::vector<PodUsage> pods;
      const int n = static_cast<int>(rng() % 4);
      for (int p = 0; p < n; ++p) {
        // 8 GPUs fill the node: a single such pod leaves nothing idle.
        const std::int64_t gpus = rng() % 2 == 0 ? 8 : 1 + static_cast<std::int64_t>(rng() % 3);
        pods.push_back(pod(namespaces[rng() % 3], "job" + std::to_string(p) + "-0", gpus));
      }
      ledger.pods_changed(id, pods, start + static_cast<Time>(rng() % 3'000));
    }
    const Time at = kMidnight + 60'000 + static_cast<Time>(rng() % 30'000);
    const auto to_date = ledger.spent_to_date(at);
    for (const auto& l : ledger.report(0, at).by_namespace) {
      EXPECT_EQ(to_date.count(l.key) ? to_date.at(l.key) : 0, l.micros) << l.key;
    }
  }
}

}  // namespace
}  // namespace fitscale
