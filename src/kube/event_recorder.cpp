#include "kube/event_recorder.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace fitscale {

using nlohmann::json;

namespace {

// At most `limit` bytes, never ending inside a UTF-8 character.
std::string cut(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit > 3 ? limit - 3 : 0;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "...";
}

json involved_object(const ObjectRef& o) {
  json j = {{"apiVersion", o.api_version.empty() ? "v1" : o.api_version},
            {"kind", o.kind},
            {"name", o.name}};
  if (!o.ns.empty()) j["namespace"] = o.ns;
  if (!o.uid.empty()) j["uid"] = o.uid;
  if (!o.resource_version.empty()) j["resourceVersion"] = o.resource_version;
  return j;
}

json event_json(const KubeEvent& e) {
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"name", e.name}, {"namespace", e.ns}}},
          {"involvedObject", involved_object(e.about)},
          {"reason", e.reason},
          {"message", e.message},
          {"type", e.type},
          {"source", {{"component", e.component}}},
          {"reportingComponent", e.component},
          {"reportingInstance", e.instance},
          {"firstTimestamp", format_rfc3339(e.first)},
          {"lastTimestamp", format_rfc3339(e.last)},
          {"count", e.count}};
}

}  // namespace

EventRecorder::EventRecorder(const KubeConfig& config, const Clock& clock,
                             EventRecorderOptions options)
    : clock_(clock),
      options_(std::move(options)),
      client_(config, options_.client),
      correlator_(options_.correlator),
      bg_(options_.writes_per_second, options_.write_burst) {}

EventRecorder::~EventRecorder() { stop(); }

void EventRecorder::start() {
  bg_.start([this] { run(); });
}

void EventRecorder::stop() {
  bg_.stop([this] { queue_.clear(); });  // the process is stopping: nobody would wait for these
}

bool EventRecorder::record(const ObjectRef& about, const std::string& type,
                           const std::string& reason, const std::string& message) {
  Pending p;
  p.at = clock_.now();
  KubeEvent& e = p.event;
  e.about = about;
  e.type = type;
  e.reason = reason;
  e.message = cut(message, options_.message_limit);
  e.component = options_.component;
  e.instance = options_.instance;
  // Node events live in "default", as the kubelet's do; namespaced objects' in their namespace.
  e.ns = about.ns.empty() ? "default" : about.ns;
  {
    std::lock_guard lock(bg_.mu);
    if (queue_.size() >= options_.queue_limit) {
      count(stats_.dropped_full, "dropped_queue_full");
      return false;
    }
    queue_.push_back(std::move(p));
    ++stats_.queued;
  }
  bg_.wake.notify_one();
  return true;
}

bool EventRecorder::flush(std::chrono::milliseconds deadline) {
  std::unique_lock lock(bg_.mu);
  return bg_.idle.wait_for(lock, deadline, [this] { return queue_.empty() && !busy_; });
}

std::size_t EventRecorder::queued() const {
  std::lock_guard lock(bg_.mu);
  return queue_.size() + (busy_ ? 1 : 0);
}

void EventRecorder::count(std::atomic<std::uint64_t>& counter, const char* outcome) {
  ++counter;
  if (outcome_) outcome_(outcome);
}

void EventRecorder::run() {
  std::unique_lock lock(bg_.mu);
  for (;;) {
    bg_.wake.wait(lock, [this] { return bg_.stopping || !queue_.empty(); });
    if (bg_.stopping) return;
    if (!bg_.take_token(lock,
                        [this] { return monotonic_ ? monotonic_() : clock_.monotonic_seconds(); }))
      return;
    Pending p = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    send(std::move(p));
    lock.lock();
    busy_ = false;
    if (queue_.empty()) bg_.idle.notify_all();
  }
}

bool EventRecorder::write(const KubeEvent& e, bool update, HttpResponse& r) {
  // The paths are spelled out in each call: tests/e2e/test_deploy.py reads them from here to
  // check that the ClusterRole grants exactly what the client calls.
  if (update) {
    json patch = {
        {"count", e.count}, {"lastTimestamp", format_rfc3339(e.last)}, {"message", e.message}};
    r = client_.send("PATCH", "/api/v1/namespaces/" + e.ns + "/events/" + e.name, patch.dump(),
                     "application/merge-patch+json");
    if (r.ok()) return true;
    if (r.status != 404) return false;
    // Gone (events expire): create it again under its name, with the count it has reached.
  }
  r = client_.send("POST", "/api/v1/namespaces/" + e.ns + "/events", event_json(e).dump());
  return r.ok();
}

void EventRecorder::send(Pending p) {
  Correlated c = correlator_.correlate(std::move(p.event), p.at);
  if (c.skip) {
    count(stats_.dropped_spam, "dropped_spam");
    return;
  }
  if (gate_ && !gate_()) {
    count(stats_.refused, "refused");
    return;
  }
  HttpResponse r;
  if (write(c.event, c.update, r)) {
    correlator_.sent(c.event);
    if (c.update && r.status != 201) {
      count(stats_.updated, "updated");
    } else {
      count(stats_.created, "created");
    }
    return;
  }
  correlator_.forget(c.event);
  const std::uint64_t failures = ++stats_.failed;
  if (outcome_) outcome_("failed");
  // One line for the first failure and every hundredth: an API outage must not flood the log.
  if (warn_ && (failures == 1 || failures % 100 == 0)) {
    warn_("event " + c.event.reason + " on " + c.event.about.kind + " " + c.event.about.name +
          " not written (" + std::to_string(failures) + " so far): " + describe_failure(r));
  }
}

}  // namespace fitscale
