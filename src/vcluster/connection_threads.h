#pragma once
// cpp-httplib runs each connection (its keep-alive loop, or a whole watch stream) on one task of
// its task queue. Its stock ThreadPool has a fixed number of threads, so 64 open watches or 64
// slow clients used to take all of them and even /healthz went unanswered. This queue starts a
// thread per connection instead, up to `max_threads` at once (further connections wait for one
// to finish), so a watch or a slow client costs one thread and never blocks the others.
#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace fitscale::vcluster {

class ConnectionThreads : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(std::size_t max_threads);
  ~ConnectionThreads() override;
  void enqueue(std::function<void()> task) override;
  // Runs what is queued, then joins every thread.
  void shutdown() override;

 private:
  void run(std::function<void()> task);
  void join_finished(std::unique_lock<std::mutex>& lock);

  std::size_t max_threads_;
  std::mutex mu_;
  std::condition_variable all_done_;
  std::deque<std::function<void()>> waiting_;
  std::map<std::thread::id, std::thread> running_;
  std::vector<std::thread> finished_;  // returned from run(), not yet joined
  bool shut_down_ = false;
};

}  // namespace fitscale::vcluster
