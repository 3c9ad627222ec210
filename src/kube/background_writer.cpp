#include "kube/background_writer.h"

#include <algorithm>
#include <chrono>

namespace fitscale {

BackgroundWriter::BackgroundWriter(double per_second, double burst)
    : per_second_(std::max(per_second, 1e-3)), burst_(burst), tokens_(burst) {}

BackgroundWriter::~BackgroundWriter() {
  stop([] {});
}

void BackgroundWriter::start(std::function<void()> loop) {
  std::lock_guard lock(mu);
  if (worker_.joinable()) return;
  stopping = false;
  worker_ = std::thread(std::move(loop));
}

void BackgroundWriter::stop(const std::function<void()>& drop) {
  {
    std::lock_guard lock(mu);
    stopping = true;
  }
  wake.notify_all();
  if (worker_.joinable()) worker_.join();
  std::lock_guard lock(mu);
  drop();
  idle.notify_all();
}

bool BackgroundWriter::take_token(std::unique_lock<std::mutex>& lock,
                                  const std::function<double()>& now_seconds) {
  for (;;) {
    const double now = now_seconds();
    if (refilled_at_ < 0) refilled_at_ = now;
    if (now > refilled_at_) {
      tokens_ = std::min(burst_, tokens_ + (now - refilled_at_) * per_second_);
      refilled_at_ = now;
    }
    if (tokens_ >= 1) {
      tokens_ -= 1;
      return true;
    }
    const auto wait = std::chrono::duration<double>(std::min(1.0, (1 - tokens_) / per_second_));
    if (wake.wait_for(lock, wait, [this] { return stopping; })) return false;
  }
}

}  // namespace fitscale
