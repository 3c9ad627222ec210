#include "controller/launch_tracker.h"

#include <algorithm>

namespace fitscale {
namespace {

bool ending(const Instance& inst) {
  return inst.state == "shutting-down" || inst.state == "terminated" || inst.state == "stopping" ||
         inst.state == "stopped";
}

std::pair<std::string, std::string> split_job(const std::string& job, const std::string& ns) {
  auto slash = job.find('/');
  if (slash == std::string::npos) return {ns, job};
  return {job.substr(0, slash), job.substr(slash + 1)};
}

LaunchRecord record_for(const Instance& inst, const std::string& provider) {
  LaunchRecord r;
  r.name = launch_object_name(inst.id);
  r.instance_id = inst.id;
  r.pool = inst.pool.empty() ? "default" : inst.pool;
  r.provider = provider;
  r.instance_type = inst.instance_type;
  r.zone = inst.zone;
  r.capacity_type = inst.capacity_type;
  r.price_micros_per_hour = inst.price_micros_per_hour;
  std::tie(r.job_namespace, r.job_name) = split_job(inst.job, inst.owner_namespace);
  return r;
}

}  // namespace

void LaunchTracker::track(const Instance& inst, LaunchRecord record, Time now) {
  record.status = launched_status(inst, inst.launched_at != 0 ? inst.launched_at : now);
  Tracked& t = by_instance_[inst.id];
  t.record = std::move(record);
  t.interruption_notice = inst.interruption_notice;
  log_.launch_changed(t.record);
}

void LaunchTracker::update(Tracked& t, const LaunchObservation& seen, Time now) {
  LaunchStatus next = next_launch_status(t.record.status, seen, now);
  if (next == t.record.status) return;
  t.record.status = std::move(next);
  log_.launch_changed(t.record);
}

void LaunchTracker::observe(const std::vector<Node>& nodes, const std::vector<Instance>& instances,
                            Time now) {
  std::unordered_map<std::string_view, const Node*> node_of;
  for (const auto& n : nodes) {
    if (n.managed && n.state != NodeState::InFlight && !n.instance_id.empty()) {
      node_of.emplace(n.instance_id, &n);
    }
  }
  std::unordered_set<std::string_view> listed;
  listed.reserve(instances.size());
  for (const auto& inst : instances) {
    if (ending(inst)) continue;
    listed.insert(inst.id);
    if (gone_.count(inst.id) != 0) continue;
    // Interruption notices arrive on the instance before its node shows them.
    if (auto t = by_instance_.find(inst.id); t != by_instance_.end()) {
      t->second.interruption_notice = t->second.interruption_notice || inst.interruption_notice;
    } else {
      track(inst, record_for(inst, provider_), now);
    }
  }
  std::erase_if(gone_, [&](const std::string& id) { return listed.count(id) == 0; });
  for (auto it = by_instance_.begin(); it != by_instance_.end();) {
    Tracked& t = it->second;
    LaunchObservation seen;
    seen.listed = listed.count(it->first) != 0;
    seen.listed_before = t.listed_before;
    if (auto n = node_of.find(it->first); n != node_of.end()) {
      seen.node_name = n->second->name;
      seen.provider_id = n->second->provider_id;
      seen.node_ready = n->second->state == NodeState::Ready;
      t.interruption_notice = t.interruption_notice || n->second->interruption_notice;
    }
    seen.interruption_notice = t.interruption_notice;
    update(t, seen, now);
    t.listed_before = t.listed_before || seen.listed;
    if (removed_condition(t.record.status) != nullptr) {
      it = by_instance_.erase(it);  // written; the writer deletes it after the retention
    } else {
      ++it;
    }
  }
}

void LaunchTracker::launched(const LaunchDecision& d, const std::string& pool,
                             const std::vector<Instance>& instances, Time now) {
  if (instances.empty()) return;
  const std::size_t n = instances.size();
  const std::size_t per = (d.pods.size() + n - 1) / n;  // pods of one instance, in plan order
  for (std::size_t i = 0; i < n; ++i) {
    const Instance& inst = instances[i];
    LaunchRecord r = record_for(inst, provider_);
    if (!pool.empty()) r.pool = pool;
    if (!d.job.empty()) std::tie(r.job_namespace, r.job_name) = split_job(d.job, d.owner_namespace);
    const std::size_t from = std::min(d.pods.size(), i * per);
    const std::size_t to = std::min(d.pods.size(), from + per);
    r.pod_count = static_cast<std::int64_t>(to - from);
    r.pods.assign(
        d.pods.begin() + static_cast<std::ptrdiff_t>(from),
        d.pods.begin() + static_cast<std::ptrdiff_t>(std::min(to, from + kLaunchPodsListed)));
    track(inst, std::move(r), now);
  }
}

void LaunchTracker::removed(const RemoveDecision& d, Time now) {
  auto it = by_instance_.find(d.instance_id);
  if (it == by_instance_.end()) return;
  LaunchObservation seen;
  seen.listed_before = it->second.listed_before;
  seen.removed = d.kind;
  seen.removed_message = d.reason;
  update(it->second, seen, now);
  gone_.insert(d.instance_id);
  by_instance_.erase(it);
}

}  // namespace fitscale
