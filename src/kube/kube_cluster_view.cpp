#include "kube/kube_cluster_view.h"

#include <nlohmann/json.hpp>

#include "kube/leader_election.h"

namespace fitscale {

using nlohmann::json;

namespace {

json taint_json(const Taint& t) {
  json j = {{"key", t.key}, {"effect", to_string(t.effect)}};
  if (!t.value.empty()) j["value"] = t.value;
  return j;
}

}  // namespace

KubeClusterView::KubeClusterView(const KubeConfig& config, const Clock& clock,
                                 const obs::Logger& log, KubeCodecs codecs, KubeViewOptions options)
    : log_(log),
      options_(options),
      nodes_(config, std::move(codecs.nodes), log, options.informer),
      pods_(config, std::move(codecs.pods), log, options.informer),
      pdbs_(config, std::move(codecs.pdbs), log, options.informer),
      gang_objects_(config, log, options.informer),
      volumes_(config, log, options.informer),
      writer_(config, options.client),
      events_(config, clock, [&] {
        EventRecorderOptions e = options.events;
        e.component = options.component;
        e.instance = options.instance;
        e.client = options.client;
        return e;
      }()) {
  events_.set_gate([this] {
    std::lock_guard lock(write_mu_);
    return !gate_ || gate_();
  });
  events_.set_warn([this](const std::string& what) { log_.warn(what); });
}

KubeClusterView::~KubeClusterView() { stop(); }

void KubeClusterView::start() {
  events_.start();
  nodes_.start();
  pods_.start();
  pdbs_.start();
  volumes_.start();
  std::lock_guard lock(write_mu_);
  gang_objects_.start(writer_);
}

void KubeClusterView::stop() {
  events_.stop();
  // A watch notices a stop within about a second (curl's progress callback): stop all at once.
  nodes_.request_stop();
  pods_.request_stop();
  pdbs_.request_stop();
  gang_objects_.request_stop();
  volumes_.request_stop();
  nodes_.stop();
  pods_.stop();
  pdbs_.stop();
  gang_objects_.stop();
  volumes_.stop();
}

void KubeClusterView::set_write_gate(std::function<bool()> gate, std::string why) {
  std::lock_guard lock(write_mu_);
  gate_ = std::move(gate);
  gate_why_ = std::move(why);
}

bool KubeClusterView::allowed(const std::string& action) {
  if (!gate_ || gate_()) return true;
  log_.info("not taking action (" + gate_why_ + "): " + action);
  return false;
}

bool KubeClusterView::synced() const {
  return nodes_.cache().current() && pods_.cache().current() && pdbs_.cache().current();
}

std::uint64_t KubeClusterView::generation() const {
  // Each cache's counter only grows, so the sum changes whenever any of them does.
  return nodes_.cache().generation() + pods_.cache().generation() + pdbs_.cache().generation() +
         gang_objects_.generation() + volumes_.generation();
}

ClusterState KubeClusterView::observe() {
  ClusterState s;
  s.synced = synced();
  s.nodes = nodes_.cache().items();
  s.pods = pods_.cache().items();
  s.pdbs = pdbs_.cache().items();
  s.bad_pods = pods_.cache().bad();
  gang_objects_.apply(s.pods);
  volumes_.apply(s.pods);
  return s;
}

bool KubeClusterView::cordon(const std::string& node) {
  std::lock_guard lock(write_mu_);
  if (!allowed("cordon node " + node)) return false;
  json patch = {{"spec", {{"unschedulable", true}}}};
  HttpResponse r =
      writer_.send("PATCH", "/api/v1/nodes/" + node, patch.dump(), "application/merge-patch+json");
  if (!r.ok()) log_.warn("cordon failed", {{"node", node}, {"error", describe_failure(r)}});
  return r.ok();
}

bool KubeClusterView::uncordon(const std::string& node) {
  std::lock_guard lock(write_mu_);
  if (!allowed("uncordon node " + node)) return false;
  json patch = {{"spec", {{"unschedulable", false}}}};
  HttpResponse r =
      writer_.send("PATCH", "/api/v1/nodes/" + node, patch.dump(), "application/merge-patch+json");
  if (!r.ok()) log_.warn("uncordon failed", {{"node", node}, {"error", describe_failure(r)}});
  return r.ok();
}

bool KubeClusterView::add_taint(const std::string& node, const Taint& taint) {
  std::lock_guard lock(write_mu_);
  if (!allowed("taint node " + node + " with " + taint.key)) return false;
  return edit_taints(node, "taint", [&](json& taints) {
    for (const auto& t : taints) {
      if (t.value("key", "") == taint.key && t.value("effect", "") == to_string(taint.effect))
        return false;
    }
    taints.push_back(taint_json(taint));
    return true;
  });
}

bool KubeClusterView::remove_taint(const std::string& node, const std::string& key) {
  std::lock_guard lock(write_mu_);
  if (!allowed("remove taint " + key + " from node " + node)) return false;
  return edit_taints(node, "untaint", [&](json& taints) {
    json kept = json::array();
    for (const auto& t : taints) {
      if (t.value("key", "") != key) kept.push_back(t);
    }
    if (kept.size() == taints.size()) return false;
    taints = std::move(kept);
    return true;
  });
}

bool KubeClusterView::edit_taints(const std::string& node, const std::string& what,
                                  const std::function<bool(json&)>& edit) {
  // A merge patch replaces the whole taint list, so read-modify-write with the resourceVersion
  // we read: a concurrent change (kubelet, another controller) makes us retry, not clobber it.
  for (int attempt = 0; attempt < 5; ++attempt) {
    HttpResponse got = writer_.get("/api/v1/nodes/" + node);
    if (!got.ok()) {
      log_.warn(what + " failed", {{"node", node}, {"error", describe_failure(got)}});
      return false;
    }
    json taints = json::array();
    std::string rv;
    try {
      json obj = json::parse(got.body);
      rv = obj.at("metadata").value("resourceVersion", "");
      if (obj.contains("spec") && obj["spec"].contains("taints") &&
          obj["spec"]["taints"].is_array()) {
        taints = obj["spec"]["taints"];
      }
    } catch (const json::exception& e) {
      log_.warn(what + " failed: unreadable node", {{"node", node}, {"error", e.what()}});
      return false;
    }
    if (!edit(taints)) return true;  // already as wanted
    json patch = {{"metadata", {{"resourceVersion", rv}}}, {"spec", {{"taints", taints}}}};
    HttpResponse r = writer_.send("PATCH", "/api/v1/nodes/" + node, patch.dump(),
                                  "application/merge-patch+json");
    if (r.ok()) return true;
    if (r.status != 409) {
      log_.warn(what + " failed", {{"node", node}, {"error", describe_failure(r)}});
      return false;
    }
  }
  log_.warn(what + " failed: gave up after repeated conflicts", {{"node", node}});
  return false;
}

EvictOutcome KubeClusterView::evict(const std::string& ns, const std::string& pod) {
  std::lock_guard lock(write_mu_);
  if (!allowed("evict pod " + ns + "/" + pod)) return EvictOutcome::Failed;
  json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", pod}, {"namespace", ns}}}};
  HttpResponse r = writer_.send("POST", "/api/v1/namespaces/" + ns + "/pods/" + pod + "/eviction",
                                eviction.dump());
  if (r.ok()) return EvictOutcome::Evicted;
  if (r.status == 429) {
    log_.info("eviction blocked by a PodDisruptionBudget, will retry", {{"pod", ns + "/" + pod}});
    return EvictOutcome::BlockedByBudget;
  }
  if (r.status == 404) return EvictOutcome::NotFound;
  log_.warn("eviction failed", {{"pod", ns + "/" + pod}, {"error", describe_failure(r)}});
  return EvictOutcome::Failed;
}

bool KubeClusterView::remove_scheduling_gate(const std::string& ns, const std::string& pod,
                                             std::string_view gate) {
  std::lock_guard lock(write_mu_);
  const std::string key = ns + "/" + pod;
  if (!allowed("remove scheduling gate " + std::string(gate) + " of pod " + key)) return false;
  for (int attempt = 0; attempt < 5; ++attempt) {
    HttpResponse got = writer_.get("/api/v1/namespaces/" + ns + "/pods/" + pod);
    if (got.status == 404) return true;  // gone: nothing holds it any more
    if (!got.ok()) {
      log_.warn("removing scheduling gate failed",
                {{"pod", key}, {"error", describe_failure(got)}});
      return false;
    }
    std::optional<std::size_t> index;
    try {
      json obj = json::parse(got.body);
      const json* gates = nullptr;
      if (obj.contains("spec") && obj["spec"].is_object() &&
          obj["spec"].contains("schedulingGates"))
        gates = &obj["spec"]["schedulingGates"];
      if (gates != nullptr && gates->is_array()) {
        for (std::size_t i = 0; i < gates->size(); ++i) {
          const json& g = (*gates)[i];
          if (g.is_object() && g.value("name", "") == gate) index = i;
        }
      }
    } catch (const json::exception& e) {
      log_.warn("removing scheduling gate failed: unreadable pod",
                {{"pod", key}, {"error", e.what()}});
      return false;
    }
    if (!index) return true;  // removed already (by us, another replica, or by hand)
    const std::string at = "/spec/schedulingGates/" + std::to_string(*index);
    json patch = json::array({{{"op", "test"}, {"path", at + "/name"}, {"value", gate}},
                              {{"op", "remove"}, {"path", at}}});
    HttpResponse r = writer_.send("PATCH", "/api/v1/namespaces/" + ns + "/pods/" + pod,
                                  patch.dump(), "application/json-patch+json");
    if (r.ok()) return true;
    if (r.status == 404) return true;
    // 422: the test failed (the gates moved between our read and the patch); 409: a conflict.
    if (r.status != 422 && r.status != 409) {
      log_.warn("removing scheduling gate failed", {{"pod", key}, {"error", describe_failure(r)}});
      return false;
    }
  }
  log_.warn("removing scheduling gate failed: gave up after repeated conflicts", {{"pod", key}});
  return false;
}

bool KubeClusterView::delete_node(const std::string& node) {
  std::lock_guard lock(write_mu_);
  if (!allowed("delete node " + node)) return false;
  HttpResponse r = writer_.send("DELETE", "/api/v1/nodes/" + node, "");
  if (r.ok() || r.status == 404) return true;  // gone either way
  log_.warn("node deletion failed", {{"node", node}, {"error", describe_failure(r)}});
  return false;
}

bool KubeClusterView::delete_pod(const std::string& ns, const std::string& pod) {
  std::lock_guard lock(write_mu_);
  if (!allowed("delete pod " + ns + "/" + pod)) return false;
  HttpResponse r = writer_.send("DELETE", "/api/v1/namespaces/" + ns + "/pods/" + pod, "");
  if (r.ok() || r.status == 404) return true;  // gone either way
  log_.warn("pod deletion failed", {{"pod", ns + "/" + pod}, {"error", describe_failure(r)}});
  return false;
}

void KubeClusterView::record_event(const ObjectRef& about, const std::string& type,
                                   const std::string& reason, const std::string& message) {
  {
    std::lock_guard lock(write_mu_);
    if (!allowed(type + " event " + reason + " on " + about.kind + " " + about.name)) return;
  }
  ObjectRef ref = about;
  if (ref.kind == "Pod" && (ref.uid.empty() || ref.resource_version.empty())) {
    pods_.cache().visit(ref.ns + "/" + ref.name, [&](const Pod* pod) {
      if (pod == nullptr) return;
      if (ref.uid.empty()) ref.uid = pod->uid;
      if (ref.resource_version.empty()) ref.resource_version = pod->resource_version;
    });
  } else if (ref.kind == "Node" && ref.uid.empty()) {
    // The kubelet's convention, which `kubectl describe node` follows: a node's events carry
    // its name as involvedObject.uid (describe selects them by it).
    ref.uid = ref.name;
  }
  events_.record(ref, type, reason, message);
}

}  // namespace fitscale
