// The loop times itself on the Clock's monotonic reading (issue 13: fitscale_loop_duration_seconds
// was always 0, nothing measured the phases): observe, plan, act and record, and the whole loop.
#include <gtest/gtest.h>

#include "controller/controller.h"
#include "fakes.h"

namespace fitscale::testing {
namespace {

constexpr Time kStart = 1'780'000'000;

// Wall time from a FakeClock; a monotonic reading that moves 1/8 s each time it is read, so
// every phase that reads it takes a visible, exact amount of time.
class TickingClock final : public Clock {
 public:
  explicit TickingClock(const FakeClock& wall) : wall_(wall) {}
  Time now() const override { return wall_.now(); }
  double monotonic_seconds() const override { return ticks_ += 0.125; }

 private:
  const FakeClock& wall_;
  mutable double ticks_ = 1000;
};

class StatsRecorder final : public Recorder {
 public:
  std::vector<LoopStats> loops;
  void action(const ActionRecord&) override {}
  void planned(const Snapshot&, const Plan&, const LoopStats&) override {}
  void loop_finished(const LoopStats& s) override { loops.push_back(s); }
};

TEST(LoopTiming, EveryPhaseOfAPlannedLoopAndTheWholeLoopAreMeasured) {
  Catalog catalog = tiny_catalog();
  FakeClock wall(kStart);
  TickingClock clock(wall);
  FakeCluster cluster;
  FakeCloud cloud(wall);
  StatsRecorder recorder;
  ControllerOptions options;
  options.policy = tiny_policy();
  Controller controller(cluster, cloud, catalog, clock, nullptr, recorder, options);

  cluster.add_pod(make_pod("train", 1000, 2 * kGi));
  ASSERT_TRUE(controller.reconcile().planned);
  ASSERT_EQ(recorder.loops.size(), 1u);
  const LoopStats& planned = recorder.loops[0];
  EXPECT_FALSE(planned.skipped);
  EXPECT_GT(planned.observe_s, 0);
  EXPECT_GT(planned.plan_s, 0);
  EXPECT_GT(planned.act_s, 0);
  EXPECT_GT(planned.record_s, 0);
  // The phases follow one another: together they are the loop, less what follows the last one.
  const double phases = planned.observe_s + planned.plan_s + planned.act_s + planned.record_s;
  EXPECT_GE(planned.total_s, phases);
  EXPECT_LE(planned.total_s, phases + 0.25);

  // Once nothing changes (the launch itself is news for one loop), a loop only observes, and
  // that is timed too.
  for (int i = 0; i < 3 && !recorder.loops.back().skipped; ++i) controller.reconcile();
  const LoopStats skipped = recorder.loops.back();
  EXPECT_TRUE(skipped.skipped);
  EXPECT_GT(skipped.observe_s, 0);
  EXPECT_EQ(skipped.plan_s + skipped.act_s + skipped.record_s, 0);
  EXPECT_GE(skipped.total_s, skipped.observe_s);
}

TEST(LoopTiming, AClockWithoutAMonotonicReadingMeasuresWithItsSeconds) {
  // A test's hand-set clock does not move during a loop: every duration is 0, none negative.
  Catalog catalog = tiny_catalog();
  FakeClock clock(kStart);
  FakeCluster cluster;
  FakeCloud cloud(clock);
  StatsRecorder recorder;
  ControllerOptions options;
  options.policy = tiny_policy();
  Controller controller(cluster, cloud, catalog, clock, nullptr, recorder, options);
  cluster.add_pod(make_pod("train", 1000, 2 * kGi));
  controller.reconcile();
  ASSERT_EQ(recorder.loops.size(), 1u);
  EXPECT_EQ(recorder.loops[0].total_s, 0);
  EXPECT_EQ(recorder.loops[0].plan_s, 0);
}

}  // namespace
}  // namespace fitscale::testing
