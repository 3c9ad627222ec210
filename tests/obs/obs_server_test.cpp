// The probes Kubernetes calls and the scrape Prometheus makes, on a real loopback socket.
#include "obs/obs_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>

#include "model/error.h"
#include "obs/readiness.h"

namespace fitscale::obs {
namespace {

TEST(ObsServer, ServesMetricsHealthAndReadinessOnAFreePort) {
  MetricsRegistry reg;
  reg.counter("fitscale_launches_total", "Instances launched.").inc({}, 2);
  std::atomic<bool> ready{false};
  ObsServer server("127.0.0.1:0", reg, [&] { return ready.load(); });
  server.start();
  ASSERT_GT(server.port(), 0);
  httplib::Client c("127.0.0.1", server.port());
  auto m = c.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
  EXPECT_NE(m->body.find("fitscale_launches_total 2\n"), std::string::npos);
  EXPECT_EQ(m->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(c.Get("/healthz")->status, 200);
  EXPECT_EQ(c.Get("/readyz")->status, 503);
  ready = true;
  EXPECT_EQ(c.Get("/readyz")->status, 200);
  server.stop();
}

TEST(ObsServer, BadAddressIsAnInputError) {
  MetricsRegistry reg;
  EXPECT_THROW(ObsServer("localhost", reg, nullptr), InputError);
  EXPECT_THROW(ObsServer("127.0.0.1:http", reg, nullptr), InputError);
  EXPECT_THROW(ObsServer("127.0.0.1:70000", reg, nullptr), InputError);
  EXPECT_EQ(parse_listen_address(":9090").host, "0.0.0.0");
  EXPECT_EQ(parse_listen_address("[::1]:8080").host, "::1");
}

TEST(ObsServer, PortInUseIsReported) {
  MetricsRegistry reg;
  ObsServer a("127.0.0.1:0", reg, nullptr);
  a.start();
  ObsServer b("127.0.0.1:" + std::to_string(a.port()), reg, nullptr);
  EXPECT_THROW(b.start(), std::runtime_error);
}

TEST(Readiness, LeaderWithAStalledLoopTurnsUnready) {
  Time now = 1000;
  Readiness r(10, [&] { return now; });
  EXPECT_FALSE(r.ready());
  EXPECT_EQ(r.explain(), "informers not synced");
  r.set_synced(true);
  EXPECT_TRUE(r.ready()) << "a synced standby is ready";
  r.set_leader(true);
  now = 1020;
  EXPECT_TRUE(r.ready()) << "a new leader gets three intervals for its first loop";
  now = 1031;
  EXPECT_FALSE(r.ready());
  r.loop_finished({.at = 1031});
  EXPECT_TRUE(r.ready());
  now = 1061;
  EXPECT_TRUE(r.ready());
  now = 1062;
  EXPECT_FALSE(r.ready());
  EXPECT_EQ(r.explain(), "last loop 31s ago (> 3 x 10s)");
}

TEST(Readiness, ALongLoopInProgressIsWorkNotAStallUntilItLooksWedged) {
  Time now = 1000;
  Readiness r(10, [&] { return now; });
  r.set_synced(true);
  r.set_leader(true);
  r.loop_finished({.at = 1000});
  now = 1005;
  r.loop_started();  // a burst: this loop takes minutes
  now = 1100;
  EXPECT_TRUE(r.ready()) << r.explain();
  EXPECT_EQ(r.explain(), "ready (loop running for 95s)");
  now = 1306;
  EXPECT_FALSE(r.ready());
  EXPECT_EQ(r.explain(), "loop running for 301s (> 300s)");
  r.loop_finished({.at = 1306});
  EXPECT_TRUE(r.ready());
}

}  // namespace
}  // namespace fitscale::obs
