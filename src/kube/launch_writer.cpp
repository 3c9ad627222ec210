#include "kube/launch_writer.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "kube/launch_object.h"

namespace fitscale {

using nlohmann::json;

LaunchWriter::LaunchWriter(const KubeConfig& config, const Clock& clock,
                           LaunchWriterOptions options)
    : clock_(clock),
      options_(std::move(options)),
      client_(config, options_.client),
      bg_(options_.writes_per_second, options_.write_burst) {}

LaunchWriter::~LaunchWriter() { stop(); }

void LaunchWriter::start() {
  bg_.start([this] { run(); });
}

void LaunchWriter::stop() {
  bg_.stop([this] {
    pending_.clear();
    order_.clear();
  });
}

void LaunchWriter::launch_changed(const LaunchRecord& launch) {
  {
    std::lock_guard lock(bg_.mu);
    ++stats_.changed;
    auto [it, inserted] = pending_.try_emplace(launch.name, launch);
    if (!inserted) {
      it->second = launch;  // coalesced: only the latest state is written
      return;
    }
    if (pending_.size() > options_.limit) {
      pending_.erase(it);
      count(stats_.dropped, "dropped");
      return;
    }
    order_.push_back(launch.name);
  }
  bg_.wake.notify_one();
}

bool LaunchWriter::flush(std::chrono::milliseconds deadline) {
  std::unique_lock lock(bg_.mu);
  return bg_.idle.wait_for(lock, deadline, [this] { return order_.empty() && !busy_; });
}

void LaunchWriter::count(std::atomic<std::uint64_t>& counter, const char* outcome) {
  ++counter;
  if (outcome_) outcome_(outcome);
}

void LaunchWriter::failure(const std::string& what, const HttpResponse& r) {
  const std::uint64_t failures = ++stats_.failed;
  if (outcome_) outcome_("failed");
  // One line for the first failure and every hundredth: an API outage must not flood the log.
  if (warn_ && (failures == 1 || failures % 100 == 0)) {
    warn_("Launch object " + what + " failed (" + std::to_string(failures) +
          " so far): " + describe_failure(r));
  }
}

bool LaunchWriter::list() {
  const Time now = clock_.now();
  if (now < look_again_at_) return false;
  known_.clear();
  expiries_.clear();
  std::string cont;
  do {
    const std::string page = cont.empty() ? "" : "&continue=" + url_encode(cont);
    HttpResponse r = client_.get("/apis/fitscale.io/v1alpha1/launches?limit=500" + page);
    if (r.status == 404) {
      if (!absent_said_ && warn_) {
        warn_(
            "Launch objects are not written: the CustomResourceDefinition launches.fitscale.io "
            "is not installed (kubectl apply -f deploy/crds/launches.fitscale.io.yaml); "
            "looking again every " +
            std::to_string(options_.absent_recheck_s) + "s");
      }
      absent_ = absent_said_ = true;
      look_again_at_ = now + options_.absent_recheck_s;
      return false;
    }
    if (!r.ok()) {
      failure("list", r);
      look_again_at_ = now + options_.failure_recheck_s;
      return false;
    }
    json j = json::parse(r.body, nullptr, false);
    cont.clear();
    if (!j.is_object()) continue;
    for (const auto& item : j.value("items", json::array())) {
      if (!item.is_object() || !item.contains("metadata") || !item["metadata"].is_object())
        continue;
      const std::string name = item["metadata"].value("name", std::string());
      if (name.empty()) continue;
      Known& k = known_[name];
      k.exists = true;
      k.status = launch_status_from(item);
      if (auto at = launch_expires_at(*k.status, options_.retention)) expiries_.emplace(*at, name);
    }
    if (j.contains("metadata") && j["metadata"].is_object()) {
      cont = j["metadata"].value("continue", std::string());
    }
  } while (!cont.empty());
  if (absent_ && info_) info_("launches.fitscale.io is installed now: writing Launch objects");
  absent_ = false;
  listed_ = true;
  retry_at_ = 0;  // what waited for the CRD goes now
  return true;
}

void LaunchWriter::retry_later(LaunchRecord r) {
  const Time now = clock_.now();
  if (retry_.empty() || retry_at_ < now) retry_at_ = now + options_.failure_recheck_s;
  std::string name = r.name;
  retry_.insert_or_assign(std::move(name), std::move(r));
}

void LaunchWriter::write(LaunchRecord r) {
  Known& k = known_[r.name];
  if (!k.exists) {
    HttpResponse c =
        client_.send("POST", "/apis/fitscale.io/v1alpha1/launches", launch_object(r).dump());
    if (c.ok()) {
      k.exists = true;
      k.status = LaunchStatus{};  // the status subresource ignored what a create carried
      count(stats_.created, "created");
    } else if (c.status == 409) {
      // Created by an earlier term after this one listed: read what it says.
      k.exists = true;
      HttpResponse g = client_.get("/apis/fitscale.io/v1alpha1/launches/" + r.name);
      if (g.ok()) {
        k.status = launch_status_from(json::parse(g.body, nullptr, false));
      } else {
        k.status.reset();
      }
    } else if (c.status == 404) {
      // The CRD was deleted: list again (which says so) before writing anything else.
      listed_ = false;
      look_again_at_ = 0;
      retry_later(std::move(r));
      return;
    } else {
      failure("create of " + r.name, c);
      retry_later(std::move(r));
      return;
    }
  }
  LaunchStatus desired = k.status ? with_kept_transition_times(r.status, *k.status) : r.status;
  if (k.status && *k.status == desired) {
    count(stats_.unchanged, "unchanged");
  } else {
    HttpResponse s =
        client_.send("PATCH", "/apis/fitscale.io/v1alpha1/launches/" + r.name + "/status",
                     launch_status_patch(desired).dump(), "application/merge-patch+json");
    if (s.status == 404) {
      k.exists = false;  // deleted by hand meanwhile: created again
      retry_later(std::move(r));
      return;
    }
    if (!s.ok()) {
      failure("status of " + r.name, s);
      retry_later(std::move(r));
      return;
    }
    k.status = desired;
    count(stats_.status_written, "status_written");
  }
  if (auto at = launch_expires_at(desired, options_.retention)) expiries_.emplace(*at, r.name);
}

void LaunchWriter::expire(Time now) {
  // A bounded number per pass: an hour after a burst, 10,000 deletions must not go at once.
  int budget = std::max(1, static_cast<int>(options_.writes_per_second));
  while (!expiries_.empty() && expiries_.begin()->first <= now && budget-- > 0) {
    const std::string name = expiries_.begin()->second;
    expiries_.erase(expiries_.begin());
    HttpResponse d = client_.send("DELETE", "/apis/fitscale.io/v1alpha1/launches/" + name, "");
    if (d.ok() || d.status == 404) {
      known_.erase(name);
      count(stats_.deleted, "deleted");
    } else {
      failure("delete of " + name, d);
      expiries_.emplace(now + options_.failure_recheck_s, name);
    }
  }
}

void LaunchWriter::run() {
  std::unique_lock lock(bg_.mu);
  for (;;) {
    // Wakes at least every second: deletions fall due and retries come round without work.
    bg_.wake.wait_for(lock, std::chrono::seconds(1),
                      [this] { return bg_.stopping || !order_.empty(); });
    if (bg_.stopping) return;
    busy_ = true;
    lock.unlock();
    const bool open = !gate_ || gate_();
    if (!open) {
      // Not the leader: the leader writes. The next term starts from a new list.
      listed_ = false;
      known_.clear();
      expiries_.clear();
      retry_.clear();
    }
    const bool ready = open && (listed_ || list());
    const Time now = clock_.now();
    if (ready) expire(now);
    lock.lock();
    if (!open) {
      for (std::size_t i = 0; i < order_.size(); ++i) count(stats_.refused, "refused");
      pending_.clear();
      order_.clear();
    } else if (!ready) {
      // No CRD yet, or the list failed: keep the latest records for when it works.
      for (auto& [name, record] : pending_) retry_.insert_or_assign(name, std::move(record));
      pending_.clear();
      order_.clear();
    } else {
      if (!retry_.empty() && now >= retry_at_) {
        for (auto& [name, record] : retry_) {
          if (pending_.try_emplace(name, std::move(record)).second) order_.push_back(name);
        }
        retry_.clear();
      }
      if (!order_.empty()) {
        if (!bg_.take_token(
                lock, [this] { return monotonic_ ? monotonic_() : clock_.monotonic_seconds(); })) {
          busy_ = false;
          return;
        }
        const std::string name = order_.front();
        order_.pop_front();
        auto it = pending_.find(name);
        LaunchRecord r = std::move(it->second);
        pending_.erase(it);
        lock.unlock();
        write(std::move(r));
        lock.lock();
      }
    }
    busy_ = false;
    if (order_.empty()) bg_.idle.notify_all();
  }
}

}  // namespace fitscale
