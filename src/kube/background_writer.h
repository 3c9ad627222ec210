#pragma once
// The worker thread behind the API writers that must stay off the reconcile loop's critical path
// (EventRecorder, LaunchWriter): its lock, its wake-ups, its stop, and the client-side rate limit
// of its writes (a token bucket as client-go's: `burst` at once, then `per_second`).
//
// The owner queues work under `mu` and notifies `wake`; its loop (run on the worker thread by
// start()) waits on `wake` for work or `stopping`, takes a token before each write, and notifies
// `idle` when its queue drained. The owner's destructor calls stop() before its own members go.
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace fitscale {

class BackgroundWriter {
 public:
  BackgroundWriter(double per_second, double burst);
  ~BackgroundWriter();  // stops the worker if the owner did not
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;

  // Starts `loop` on the worker thread unless it runs already.
  void start(std::function<void()> loop);
  // Asks the loop to stop, waits for the write in progress, then calls `drop` under the lock
  // (what is still queued: the process is stopping, nobody would wait for it) and wakes every
  // waiter on `idle`.
  void stop(const std::function<void()>& drop);
  // The worker, holding `lock`: takes one write's token, waiting for it on `wake`. false: asked to
  // stop while waiting. `now` is a monotonic clock in seconds.
  bool take_token(std::unique_lock<std::mutex>& lock, const std::function<double()>& now);

  std::mutex mu;
  std::condition_variable wake;  // work arrived, or stop
  std::condition_variable idle;  // the queue drained
  bool stopping = false;         // guarded by mu

 private:
  double per_second_;
  double burst_;
  double tokens_;            // guarded by mu; a full bucket at first
  double refilled_at_ = -1;  // guarded by mu
  std::thread worker_;
};

}  // namespace fitscale
