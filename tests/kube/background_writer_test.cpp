// The worker thread and rate limit EventRecorder and LaunchWriter share.
#include "kube/background_writer.h"

#include <gtest/gtest.h>

#include <atomic>

namespace fitscale {
namespace {

TEST(BackgroundWriter, TheBurstGoesAtOnceThenOneWritePerTokenAsTheClockMoves) {
  BackgroundWriter w(/*per_second=*/2, /*burst=*/3);
  double now = 100;
  auto clock = [&] { return now; };
  std::unique_lock lock(w.mu);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(w.take_token(lock, clock)) << i;
  now += 0.5;  // one token at 2 per second
  EXPECT_TRUE(w.take_token(lock, clock));
  now += 10;  // refills to the burst, not beyond it
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(w.take_token(lock, clock)) << i;
  // Empty now: a waiting writer gives up as soon as it is asked to stop.
  w.stopping = true;
  EXPECT_FALSE(w.take_token(lock, clock));
}

TEST(BackgroundWriter, StopWaitsForTheLoopThenDropsWhatIsQueued) {
  BackgroundWriter w(1, 1);
  std::atomic<int> loops{0};
  int queued = 5;
  auto loop = [&] {
    ++loops;
    std::unique_lock lock(w.mu);
    w.wake.wait(lock, [&] { return w.stopping; });
  };
  w.start(loop);
  w.start(loop);  // running already: not a second thread
  w.stop([&] { queued = 0; });
  EXPECT_EQ(loops.load(), 1);
  EXPECT_EQ(queued, 0);
  w.start(loop);  // a stopped writer starts again
  w.stop([] {});
  EXPECT_EQ(loops.load(), 2);
}

}  // namespace
}  // namespace fitscale
