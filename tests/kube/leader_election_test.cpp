#include "kube/leader_election.h"

#include <gtest/gtest.h>

#include "fake_api_server.h"
#include "test_support.h"

namespace fitscale {
namespace {

using testing::FakeApiServer;
using testing::ManualClock;

LeaseOptions lease(const std::string& id) {
  LeaseOptions o = LeaseOptions::for_duration(15);
  o.identity = id;
  return o;
}

TEST(LeaderElection, DefaultsFollowTheLeaseDuration) {
  LeaseOptions o = LeaseOptions::for_duration(15);
  EXPECT_EQ(o.renew_period.count(), 5000);
  EXPECT_EQ(o.retry_period.count(), 2000);
  EXPECT_EQ(o.ns, "kube-system");
  EXPECT_EQ(o.name, "fitscale");
}

TEST(LeaderElection, OnlyOneOfTwoReplicasLeads) {
  FakeApiServer server;
  ManualClock clock;
  testing::TestLog log;
  LeaderElector a(testing::config_for(server.url()), clock, log.logger, lease("host-a-1"));
  LeaderElector b(testing::config_for(server.url()), clock, log.logger, lease("host-b-2"));
  EXPECT_TRUE(a.try_acquire_or_renew());   // creates the lease
  EXPECT_FALSE(b.try_acquire_or_renew());  // held and fresh
  clock.advance(5);
  EXPECT_TRUE(a.try_acquire_or_renew());  // renews
  clock.advance(10);
  EXPECT_FALSE(b.try_acquire_or_renew());  // renewed 10 s ago: still a's
  auto l = server.leases().at("kube-system/fitscale");
  EXPECT_EQ(l["spec"]["holderIdentity"], "host-a-1");
  EXPECT_EQ(l["spec"]["leaseDurationSeconds"], 15);
  EXPECT_EQ(l["spec"]["renewTime"].get<std::string>().size(),
            std::string("2027-01-15T08:00:00.000000Z").size());
}

TEST(LeaderElection, StandbyTakesOverAnExpiredLease) {
  FakeApiServer server;
  ManualClock clock;
  testing::TestLog log;
  LeaderElector a(testing::config_for(server.url()), clock, log.logger, lease("host-a-1"));
  LeaderElector b(testing::config_for(server.url()), clock, log.logger, lease("host-b-2"));
  ASSERT_TRUE(a.try_acquire_or_renew());
  ASSERT_FALSE(b.try_acquire_or_renew());
  clock.advance(16);  // a died: no renewal for longer than the lease
  EXPECT_TRUE(b.try_acquire_or_renew());
  auto l = server.leases().at("kube-system/fitscale");
  EXPECT_EQ(l["spec"]["holderIdentity"], "host-b-2");
  EXPECT_EQ(l["spec"]["leaseTransitions"], 1);
  // a comes back: it sees b's fresh lease and stops leading at once.
  EXPECT_TRUE(a.is_leader());
  EXPECT_FALSE(a.try_acquire_or_renew());
  EXPECT_FALSE(a.is_leader());
}

TEST(LeaderElection, ReleaseLetsTheStandbyInWithoutWaiting) {
  FakeApiServer server;
  ManualClock clock;
  testing::TestLog log;
  LeaderElector a(testing::config_for(server.url()), clock, log.logger, lease("host-a-1"));
  LeaderElector b(testing::config_for(server.url()), clock, log.logger, lease("host-b-2"));
  ASSERT_TRUE(a.try_acquire_or_renew());
  ASSERT_FALSE(b.try_acquire_or_renew());
  EXPECT_TRUE(a.release());
  EXPECT_FALSE(a.is_leader());
  EXPECT_EQ(server.leases().at("kube-system/fitscale")["spec"]["holderIdentity"], "");
  EXPECT_TRUE(b.try_acquire_or_renew());  // same second: no waiting out the lease
}

TEST(LeaderElection, LosingTheWriteRaceMeansNotLeading) {
  FakeApiServer server;
  ManualClock clock;
  testing::TestLog log;
  LeaderElector a(testing::config_for(server.url()), clock, log.logger, lease("host-a-1"));
  ASSERT_TRUE(a.try_acquire_or_renew());
  // Someone else takes the lease (e.g. an admin, or a replica with a faster clock).
  auto l = server.leases().at("kube-system/fitscale");
  l["spec"]["holderIdentity"] = "intruder";
  l["spec"]["renewTime"] = format_micro_time(clock.now());
  server.put_lease("kube-system", l);
  EXPECT_FALSE(a.try_acquire_or_renew());
  EXPECT_FALSE(a.is_leader());
}

TEST(LeaderElection, ThreadAcquiresAndStopReleases) {
  FakeApiServer server;
  ManualClock clock;
  testing::TestLog log;
  LeaseOptions o = lease("host-a-1");
  o.retry_period = std::chrono::milliseconds(20);
  o.renew_period = std::chrono::milliseconds(20);
  LeaderElector a(testing::config_for(server.url()), clock, log.logger, o);
  std::atomic<int> changes{0};
  a.start([&](bool) { ++changes; });
  ASSERT_TRUE(testing::eventually([&] { return a.is_leader(); }));
  a.stop();
  EXPECT_FALSE(a.is_leader());
  EXPECT_EQ(changes.load(), 2);
  EXPECT_EQ(server.leases().at("kube-system/fitscale")["spec"]["holderIdentity"], "");
  // Both transitions went to the logger it was given, as JSON lines (issue 13: they went to
  // spdlog's global logger on stdout, in text, whatever --log-format said).
  const std::string lines = log.text();
  EXPECT_NE(
      lines.find(R"({"level":"info","msg":"leader election: acquired the lease","id":"host-a-1")"),
      std::string::npos)
      << lines;
  EXPECT_NE(lines.find(R"("msg":"leader election: released the lease")"), std::string::npos)
      << lines;
}

}  // namespace
}  // namespace fitscale
