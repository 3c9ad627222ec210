#include "kube/leader_election.h"

#include <nlohmann/json.hpp>

#include "model/error.h"

namespace fitscale {

using nlohmann::json;

std::string format_micro_time(Time t) {
  std::string s = format_rfc3339(t);  // "...:05Z"
  s.insert(s.size() - 1, ".000000");
  return s;
}

LeaseOptions LeaseOptions::for_duration(Seconds duration_s) {
  LeaseOptions o;
  o.duration_s = duration_s;
  o.renew_period = std::chrono::milliseconds(duration_s * 1000 / 3);
  o.retry_period = std::chrono::milliseconds(std::max<Seconds>(duration_s * 1000 * 2 / 15, 100));
  return o;
}

LeaderElector::LeaderElector(KubeConfig config, const Clock& clock, const obs::Logger& log,
                             LeaseOptions options, ApiClientOptions client_options)
    : client_(std::move(config), std::move(client_options)),
      clock_(clock),
      log_(log),
      options_(std::move(options)) {
  if (options_.identity.empty()) throw InputError("leader election: empty identity");
}

LeaderElector::~LeaderElector() { stop(); }

std::string LeaderElector::lease_path() const {
  return "/apis/coordination.k8s.io/v1/namespaces/" + options_.ns + "/leases/" + options_.name;
}

void LeaderElector::set_leader(bool leader, bool released) {
  bool was = leader_.exchange(leader);
  if (was == leader) return;
  const obs::LogFields fields = {{"id", options_.identity},
                                 {"lease", options_.ns + "/" + options_.name}};
  if (released) {
    log_.info("leader election: giving up the lease", fields);
  } else if (leader) {
    log_.info("leader election: acquired the lease", fields);
  } else {
    log_.warn("leader election: not the leader any more, stopped acting", fields);
  }
  if (on_change_) on_change_(leader);
}

bool LeaderElector::try_acquire_or_renew() {
  const Time now = clock_.now();
  const Seconds renew_deadline = std::max<Seconds>(1, options_.duration_s * 2 / 3);
  // A failed round keeps leadership only while the lease we last wrote is surely still ours.
  auto on_error = [&](const std::string& what) {
    log_.warn("leader election: " + what, {{"lease", options_.ns + "/" + options_.name}});
    if (leader_ && now - last_renew_ >= renew_deadline) set_leader(false);
    return leader_.load();
  };

  HttpResponse got = client_.get(lease_path());
  json spec_in;
  std::string rv;
  std::string holder;
  std::int64_t transitions = 0;
  std::string acquire_time;
  if (got.status == 404) {
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", options_.name}, {"namespace", options_.ns}}},
                  {"spec",
                   {{"holderIdentity", options_.identity},
                    {"leaseDurationSeconds", options_.duration_s},
                    {"acquireTime", format_micro_time(now)},
                    {"renewTime", format_micro_time(now)},
                    {"leaseTransitions", 0}}}};
    HttpResponse created = client_.send(
        "POST", "/apis/coordination.k8s.io/v1/namespaces/" + options_.ns + "/leases", lease.dump());
    if (created.ok()) {
      last_renew_ = now;
      set_leader(true);
      return true;
    }
    if (created.status == 409) {  // another replica created it first
      set_leader(false);
      return false;
    }
    return on_error("cannot create lease: " + (created.error.empty()
                                                   ? "HTTP " + std::to_string(created.status)
                                                   : created.error));
  }
  if (!got.ok()) {
    return on_error("cannot read lease: " +
                    (got.error.empty() ? "HTTP " + std::to_string(got.status) : got.error));
  }

  json lease;
  try {
    lease = json::parse(got.body);
    rv = lease.at("metadata").value("resourceVersion", "");
    spec_in = lease.value("spec", json::object());
    if (spec_in.contains("holderIdentity") && spec_in["holderIdentity"].is_string()) {
      holder = spec_in["holderIdentity"].get<std::string>();
    }
    if (spec_in.contains("leaseTransitions") && spec_in["leaseTransitions"].is_number_integer()) {
      transitions = spec_in["leaseTransitions"].get<std::int64_t>();
    }
    if (spec_in.contains("acquireTime") && spec_in["acquireTime"].is_string()) {
      acquire_time = spec_in["acquireTime"].get<std::string>();
    }
  } catch (const json::exception& e) {
    return on_error(std::string("lease is not valid JSON: ") + e.what());
  }

  if (rv != observed_version_) {
    observed_version_ = rv;
    observed_at_ = now;
  }
  if (!holder.empty() && holder != options_.identity) {
    Seconds duration = options_.duration_s;
    if (spec_in.contains("leaseDurationSeconds") &&
        spec_in["leaseDurationSeconds"].is_number_integer()) {
      duration = spec_in["leaseDurationSeconds"].get<Seconds>();
    }
    bool expired = now >= observed_at_ + duration;
    if (spec_in.contains("renewTime") && spec_in["renewTime"].is_string()) {
      try {
        expired =
            expired || now >= parse_rfc3339(spec_in["renewTime"].get<std::string>()) + duration;
      } catch (const InputError&) {
        // An unreadable renewTime: fall back on how long we have watched the record unchanged.
      }
    }
    if (!expired) {
      set_leader(false);
      return false;
    }
    log_.info("leader election: the lease expired, taking over",
              {{"holder", holder}, {"lease", options_.ns + "/" + options_.name}});
  }

  const bool ours = holder == options_.identity;
  json spec = spec_in;
  spec["holderIdentity"] = options_.identity;
  spec["leaseDurationSeconds"] = options_.duration_s;
  spec["renewTime"] = format_micro_time(now);
  if (!ours || acquire_time.empty()) spec["acquireTime"] = format_micro_time(now);
  if (!ours) spec["leaseTransitions"] = transitions + 1;
  lease["spec"] = spec;
  lease["metadata"]["resourceVersion"] = rv;  // optimistic concurrency: 409 if it changed
  HttpResponse put = client_.send("PUT", lease_path(), lease.dump());
  if (put.ok()) {
    try {
      observed_version_ = json::parse(put.body).at("metadata").value("resourceVersion", "");
    } catch (const json::exception&) {
      observed_version_.clear();
    }
    observed_at_ = now;
    last_renew_ = now;
    set_leader(true);
    return true;
  }
  if (put.status == 409) {
    set_leader(false);  // somebody else wrote the lease between our read and our write
    return false;
  }
  return on_error("cannot write lease: " +
                  (put.error.empty() ? "HTTP " + std::to_string(put.status) : put.error));
}

bool LeaderElector::release() {
  HttpResponse got = client_.get(lease_path());
  if (got.status == 404) {
    set_leader(false);
    return true;
  }
  if (!got.ok()) return false;
  try {
    json lease = json::parse(got.body);
    json& spec = lease["spec"];
    if (!spec.is_object() || spec.value("holderIdentity", "") != options_.identity) {
      set_leader(false);
      return true;
    }
    const Time now = clock_.now();
    spec["holderIdentity"] = "";
    spec["leaseDurationSeconds"] = 1;
    spec["renewTime"] = format_micro_time(now);
    set_leader(false, /*released=*/true);  // stop acting before the lease is visibly free
    HttpResponse put = client_.send("PUT", lease_path(), lease.dump());
    if (put.ok()) {
      log_.info("leader election: released the lease",
                {{"lease", options_.ns + "/" + options_.name}});
    }
    return put.ok();
  } catch (const json::exception&) {
    set_leader(false);
    return false;
  }
}

void LeaderElector::start(std::function<void(bool)> on_change) {
  if (thread_.joinable()) return;
  on_change_ = std::move(on_change);
  thread_ = std::thread([this] {
    std::unique_lock lock(mu_);
    while (!stop_) {
      lock.unlock();
      bool leading = try_acquire_or_renew();
      lock.lock();
      cv_.wait_for(lock, leading ? options_.renew_period : options_.retry_period,
                   [this] { return stop_; });
    }
  });
}

void LeaderElector::stop() {
  {
    std::lock_guard lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (leader_) release();
}

}  // namespace fitscale
