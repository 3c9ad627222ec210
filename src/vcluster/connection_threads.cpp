#include "vcluster/connection_threads.h"

namespace fitscale::vcluster {

ConnectionThreads::ConnectionThreads(std::size_t max_threads)
    : max_threads_(max_threads == 0 ? 1 : max_threads) {}

ConnectionThreads::~ConnectionThreads() { shutdown(); }

void ConnectionThreads::join_finished(std::unique_lock<std::mutex>& lock) {
  std::vector<std::thread> done;
  done.swap(finished_);
  lock.unlock();
  for (auto& t : done) t.join();  // each has returned from run(): joins at once
  lock.lock();
}

void ConnectionThreads::enqueue(std::function<void()> task) {
  std::unique_lock lock(mu_);
  join_finished(lock);
  if (running_.size() >= max_threads_) {
    waiting_.push_back(std::move(task));
    return;
  }
  std::thread t([this, task = std::move(task)]() mutable { run(std::move(task)); });
  running_.emplace(t.get_id(), std::move(t));
}

void ConnectionThreads::run(std::function<void()> task) {
  for (;;) {
    task();
    std::lock_guard lock(mu_);
    if (!waiting_.empty()) {
      task = std::move(waiting_.front());
      waiting_.pop_front();
      continue;
    }
    // enqueue() registered this thread before it could take the lock, so the entry is there.
    auto self = running_.find(std::this_thread::get_id());
    finished_.push_back(std::move(self->second));
    running_.erase(self);
    all_done_.notify_all();
    return;
  }
}

void ConnectionThreads::shutdown() {
  std::unique_lock lock(mu_);
  shut_down_ = true;
  all_done_.wait(lock, [this] { return running_.empty(); });
  join_finished(lock);
}

}  // namespace fitscale::vcluster
