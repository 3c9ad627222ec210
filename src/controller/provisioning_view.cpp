#include "controller/provisioning_view.h"

#include <algorithm>

#include "model/error.h"

namespace fitscale {
namespace {

std::string request_key_of_pod(const std::string& ns, const std::string& pod_name) {
  const std::string req = request_of_pod_name(pod_name);
  return req.empty() ? std::string() : ns + "/" + req;
}

}  // namespace

ProvisioningRequestView::ProvisioningRequestView(ClusterView& inner,
                                                 ProvisioningRequestStore& store,
                                                 const Clock& clock, const Catalog& catalog,
                                                 Policy policy)
    : inner_(inner), store_(store), clock_(clock), catalog_(catalog), policy_(std::move(policy)) {
  policy_.enforce_budgets = false;
}

std::uint64_t ProvisioningRequestView::generation() const {
  // While a request is live its conditions change with time alone (a booking's 10 minutes, an
  // expiry), so every loop looks again.
  if (active_) ++polls_;
  return inner_.generation() + store_.generation() + polls_;
}

std::map<std::string, std::string> ProvisioningRequestView::fit(const ClusterState& s,
                                                                const std::vector<Pod>& pods,
                                                                Time now) const {
  Snapshot snap;
  for (const Node& n : s.nodes)
    if (n.state == NodeState::Ready) snap.nodes.push_back(n);
  // Only what holds capacity competes with a request: pending pods wait behind its booking.
  for (const Pod& p : s.pods)
    if (p.holds_resources()) snap.pods.push_back(p);
  snap.pods.insert(snap.pods.end(), pods.begin(), pods.end());
  const Plan plan_ = plan(snap, catalog_, policy_, now);
  std::map<std::string, std::string> where;
  for (const Pod& p : pods) {
    auto it = plan_.placements.find(p.key());
    if (it == plan_.placements.end()) return {};
    where[p.key()] = it->second;
  }
  return where;
}

ClusterState ProvisioningRequestView::observe() {
  ClusterState s = inner_.observe();
  actions_.clear();
  write_errors_.clear();
  active_ = false;
  // Consuming pods use booked capacity and never ask for more, whatever their request's state.
  std::map<std::string, std::int64_t> consumers;  // request key -> live consuming pods
  for (Pod& p : s.pods) {
    const std::string req = consumed_request(p);
    if (req.empty()) continue;
    if (!p.finished()) ++consumers[p.ns + "/" + req];
    if (p.unschedulable()) p.scheduler_verdict = SchedulerVerdict::NotYet;
  }
  if (!s.synced || !store_.synced()) return s;
  const Time now = clock_.now();

  std::vector<ProvisioningRequest> requests = store_.requests();
  std::sort(requests.begin(), requests.end(), [](const auto& a, const auto& b) {
    return a.created != b.created ? a.created < b.created : a.key() < b.key();
  });
  std::set<std::string> live;
  for (const ProvisioningRequest& r : requests) {
    const std::string key = r.key();
    live.insert(key);
    RequestObservation seen;
    std::vector<Pod> pods;
    if (r.provisioning_class() != ProvisioningClass::Unsupported) {
      try {
        pods = request_pods(r, store_.templates(r.ns));
      } catch (const InputError& e) {
        seen.pods_known = false;
        seen.pods_error = e.what();
      }
    }
    // Pods already created for it take their share themselves.
    const auto used =
        std::min<std::int64_t>(consumers[key], static_cast<std::int64_t>(pods.size()));
    pods.erase(pods.begin(), pods.begin() + used);
    for (Pod& p : pods)
      if (p.gang) p.gang->size = static_cast<std::int64_t>(pods.size());  // the rest, whole
    if (auto v = verdicts_.find(key); v != verdicts_.end()) seen.verdict = v->second;
    seen.launched_for_it = launched_.count(key) != 0;
    std::map<std::string, std::string> where;
    if (seen.pods_known) {
      where = fit(s, pods, now);
      seen.fits_existing = pods.empty() || !where.empty();
    }
    RequestDecision d = decide_request(r, seen, now);
    if (d.changed) {
      std::string err = store_.write_conditions(r, d.conditions);
      if (!err.empty()) write_errors_[key] = std::move(err);
    }
    actions_[key] = d.action;
    if (d.action != RequestAction::Nothing) active_ = true;
    if (d.action == RequestAction::Nothing) continue;
    if (d.action == RequestAction::Book) {
      for (Pod& p : pods) p.node_name = where[p.key()];
    }
    s.pods.insert(s.pods.end(), std::make_move_iterator(pods.begin()),
                  std::make_move_iterator(pods.end()));
  }
  // Forget what the controller said of requests that are gone.
  std::erase_if(verdicts_, [&](const auto& kv) { return live.count(kv.first) == 0; });
  std::erase_if(launched_, [&](const std::string& k) { return live.count(k) == 0; });
  return s;
}

EvictOutcome ProvisioningRequestView::evict(const std::string& ns, const std::string& pod) {
  if (!request_key_of_pod(ns, pod).empty()) return EvictOutcome::NotFound;
  return inner_.evict(ns, pod);
}

bool ProvisioningRequestView::delete_pod(const std::string& ns, const std::string& pod) {
  if (!request_key_of_pod(ns, pod).empty()) return true;
  return inner_.delete_pod(ns, pod);
}

bool ProvisioningRequestView::remove_scheduling_gate(const std::string& ns, const std::string& pod,
                                                     std::string_view gate) {
  if (!request_key_of_pod(ns, pod).empty()) return true;
  return inner_.remove_scheduling_gate(ns, pod, gate);
}

void ProvisioningRequestView::record_event(const ObjectRef& about, const std::string& type,
                                           const std::string& reason, const std::string& message) {
  const std::string key = about.kind == "Pod" ? request_key_of_pod(about.ns, about.name) : "";
  if (key.empty()) {
    inner_.record_event(about, type, reason, message);
    return;
  }
  verdicts_[key] = PlanVerdict{reason, message};
  if (reason == "TriggeredScaleUp") launched_.insert(key);
}

}  // namespace fitscale
