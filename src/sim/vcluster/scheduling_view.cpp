#include "sim/vcluster/scheduling_view.h"

#include "model/error.h"
#include "model/quantity.h"
#include "sim/vcluster/object_meta.h"
#include "sim/vcluster/selectors.h"

namespace fitscale::vcluster {
namespace {

using nlohmann::json;

const json& field(const json& obj, const char* key) {
  static const json kNull;  // immutable: stands for a missing field
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

Resources resources_from(const json& map, const std::string& where) {
  Resources r;
  if (!map.is_object()) return r;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string text = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
    try {
      r.set(it.key(), Quantity::parse(text).milli());
    } catch (const InputError& e) {
      throw InputError(where + "." + it.key() + ": " + e.what());
    }
  }
  return r;
}

Labels string_map(const json& j) {
  Labels out;
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.value().is_string()) out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

Requirement requirement_from(const json& e) {
  Requirement r;
  r.key = e.value("key", "");
  const std::string op = e.value("operator", "");
  if (op == "In") r.op = SelectorOp::In;
  else if (op == "NotIn") r.op = SelectorOp::NotIn;
  else if (op == "Exists") r.op = SelectorOp::Exists;
  else if (op == "DoesNotExist") r.op = SelectorOp::DoesNotExist;
  else if (op == "Gt") r.op = SelectorOp::Gt;
  else if (op == "Lt") r.op = SelectorOp::Lt;
  else throw InputError("unknown node selector operator \"" + op + "\"");
  for (const auto& v : field(e, "values")) r.values.push_back(v.get<std::string>());
  return r;
}

}  // namespace

Pod pod_for_scheduling(const json& pod) {
  Pod p;
  p.ns = namespace_of(pod);
  p.name = name_of(pod);
  p.uid = uid_of(pod);
  p.labels = labels_of(pod);
  p.annotations = string_map(field(field(pod, "metadata"), "annotations"));
  const std::string where = "pod " + p.ns + "/" + p.name + ": spec";
  const json& spec = field(pod, "spec");
  try {
    Resources sum;
    int i = 0;
    for (const auto& c : field(spec, "containers")) {
      sum += resources_from(field(field(c, "resources"), "requests"),
                            where + ".containers[" + std::to_string(i++) + "].resources.requests");
    }
    Resources init;
    i = 0;
    for (const auto& c : field(spec, "initContainers")) {
      init = Resources::max(init, resources_from(field(field(c, "resources"), "requests"),
                                                 where + ".initContainers[" + std::to_string(i++) + "]"));
    }
    p.requests = Resources::max(sum, init) + resources_from(field(spec, "overhead"), where + ".overhead");
    p.requests.pods = 1;
    p.node_selector = string_map(field(spec, "nodeSelector"));
    const json& terms = field(field(field(field(spec, "affinity"), "nodeAffinity"),
                                    "requiredDuringSchedulingIgnoredDuringExecution"),
                              "nodeSelectorTerms");
    for (const auto& t : terms) {
      NodeSelectorTerm term;
      for (const auto& e : field(t, "matchExpressions")) term.requirements.push_back(requirement_from(e));
      p.required_node_affinity.push_back(std::move(term));
    }
    for (const auto& t : field(spec, "tolerations")) {
      Toleration tol;
      tol.key = t.value("key", "");
      tol.exists = t.value("operator", "Equal") == "Exists";
      tol.value = t.value("value", "");
      if (t.contains("effect") && !t["effect"].get<std::string>().empty()) {
        tol.effect = parse_taint_effect(t["effect"].get<std::string>());
      }
      p.tolerations.push_back(std::move(tol));
    }
    const json& anti = field(field(field(spec, "affinity"), "podAntiAffinity"),
                             "requiredDuringSchedulingIgnoredDuringExecution");
    for (const auto& term : anti) {
      if (term.value("topologyKey", "") != "kubernetes.io/hostname") continue;
      p.anti_affinity_hostname.push_back(label_selector_from_json(field(term, "labelSelector")));
    }
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()).rfind("pod ", 0) == 0 ? e.what() : where + ": " + e.what());
  } catch (const json::exception& e) {
    throw InputError(where + ": " + e.what());
  }
  p.node_name = pod_node(pod);
  const std::string phase = pod_phase(pod);
  p.phase = phase == "Running"     ? PodPhase::Running
            : phase == "Succeeded" ? PodPhase::Succeeded
            : phase == "Failed"    ? PodPhase::Failed
                                   : PodPhase::Pending;
  p.terminating = is_terminating(pod);
  if (spec.contains("priority") && spec["priority"].is_number()) p.priority = spec["priority"].get<int>();
  return p;
}

Node node_for_scheduling(const json& node) {
  Node n;
  n.name = name_of(node);
  n.labels = labels_of(node);
  const json& spec = field(node, "spec");
  n.provider_id = spec.value("providerID", "");
  n.unschedulable = spec.value("unschedulable", false);
  for (const auto& t : field(spec, "taints")) {
    n.taints.push_back(Taint{t.value("key", ""), t.value("value", ""),
                             parse_taint_effect(t.value("effect", "NoSchedule"))});
  }
  n.allocatable = resources_from(field(field(node, "status"), "allocatable"), "node " + n.name + ": status.allocatable");
  n.state = node_is_ready(node) ? NodeState::Ready : NodeState::Registered;
  return n;
}

bool node_is_ready(const json& node) {
  for (const auto& c : field(field(node, "status"), "conditions")) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

}  // namespace fitscale::vcluster
