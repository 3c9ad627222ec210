// JSON -> Pod / Node / PodDisruptionBudgetView, on simdjson's DOM (see decode.h for why DOM).
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>

#include "kube/decode.h"
#include "kube/jobset_codec.h"
#include "kube/pod_group_codec.h"
#include "model/error.h"
#include "model/gang_sources/gang_of.h"
#include "model/quantity.h"

namespace fitscale {
namespace {

namespace dom = simdjson::dom;

// Where a field is, built into text only when something is wrong there: decoding a large list
// must not pay for a string per field.
struct Path {
  const Path* parent = nullptr;
  std::string_view name;
  long idx = -1;                    // >= 0: an array element of the parent
  Path(const char* n) : name(n) {}  // NOLINT: a literal is a root path
  Path(const Path* p, std::string_view n) : parent(p), name(n) {}
  Path(const Path* p, std::size_t i) : parent(p), idx(static_cast<long>(i)) {}
  void append_to(std::string& out) const {
    if (parent) parent->append_to(out);
    if (idx >= 0) {
      out += "[" + std::to_string(idx) + "]";
    } else {
      if (!out.empty() && !name.empty()) out += ".";
      out += name;
    }
  }
  std::string str() const {
    std::string s;
    append_to(s);
    return s;
  }
};

// The first problem found in one object ("spec.containers[0]...: bad quantity ..."). Decoding
// goes on after a problem so that the object's name is known for the message, but only the
// first one is reported.
struct Problems {
  std::string first;
  void add(const Path& path, std::string_view what) {
    if (first.empty()) first = path.str() + ": " + std::string(what);
  }
  void add_at(const std::string& path, std::string_view what) {
    if (first.empty()) first = path + ": " + std::string(what);
  }
  bool any() const { return !first.empty(); }
};

std::string_view type_name(dom::element_type t) {
  switch (t) {
    case dom::element_type::ARRAY:
      return "an array";
    case dom::element_type::OBJECT:
      return "an object";
    case dom::element_type::INT64:
    case dom::element_type::UINT64:
    case dom::element_type::DOUBLE:
      return "a number";
    case dom::element_type::STRING:
      return "a string";
    case dom::element_type::BOOL:
      return "a boolean";
    case dom::element_type::NULL_VALUE:
      return "null";
  }
  return "a value";
}

void wrong_type(Problems& p, const Path& path, dom::element e, std::string_view want) {
  p.add(path, "expected " + std::string(want) + ", got " + std::string(type_name(e.type())));
}

std::string index(std::string_view a, std::size_t i) {
  return std::string(a) + "[" + std::to_string(i) + "]";
}

// Field access that treats an explicit null like a missing field (as the API server does).
bool field(dom::object o, std::string_view key, dom::element& out) {
  if (o[key].get(out) != simdjson::SUCCESS) return false;
  return !out.is_null();
}

bool get_object(dom::object o, std::string_view key, dom::object& out, Problems& p,
                const Path& path) {
  dom::element e;
  if (!field(o, key, e)) return false;
  if (e.get(out) != simdjson::SUCCESS) {
    wrong_type(p, Path(&path, key), e, "an object");
    return false;
  }
  return true;
}

bool get_array(dom::object o, std::string_view key, dom::array& out, Problems& p,
               const Path& path) {
  dom::element e;
  if (!field(o, key, e)) return false;
  if (e.get(out) != simdjson::SUCCESS) {
    wrong_type(p, Path(&path, key), e, "an array");
    return false;
  }
  return true;
}

std::string_view get_string(dom::object o, std::string_view key, Problems& p, const Path& path) {
  dom::element e;
  if (!field(o, key, e)) return {};
  std::string_view s;
  if (e.get(s) != simdjson::SUCCESS) {
    wrong_type(p, Path(&path, key), e, "a string");
    return {};
  }
  return s;
}

std::optional<std::int64_t> get_int(dom::object o, std::string_view key, Problems& p,
                                    const Path& path) {
  dom::element e;
  if (!field(o, key, e)) return std::nullopt;
  std::int64_t v = 0;
  if (e.get(v) != simdjson::SUCCESS) {
    wrong_type(p, Path(&path, key), e, "an integer");
    return std::nullopt;
  }
  return v;
}

bool get_bool(dom::object o, std::string_view key, Problems& p, const Path& path) {
  dom::element e;
  if (!field(o, key, e)) return false;
  bool v = false;
  if (e.get(v) != simdjson::SUCCESS) {
    wrong_type(p, Path(&path, key), e, "true or false");
    return false;
  }
  return v;
}

// Every element of an array that is a T (dom::object, std::string_view), with its path
// (`base[i]`); any other element is reported at its index as not `want` and skipped, so one bad
// entry never hides the others.
template <class T, class Each>
void for_each_of(dom::array items, const Path& base, Problems& p, std::string_view want,
                 Each&& each) {
  std::size_t i = 0;
  for (dom::element e : items) {
    const Path path(&base, i++);
    T value;
    if (e.get(value) != simdjson::SUCCESS) {
      wrong_type(p, path, e, want);
      continue;
    }
    each(value, path);
  }
}

template <class Each>
void for_each_object(dom::array items, const Path& base, Problems& p, Each&& each) {
  for_each_of<dom::object>(items, base, p, "an object", each);
}

template <class Each>
void for_each_string(dom::array items, const Path& base, Problems& p, Each&& each) {
  for_each_of<std::string_view>(items, base, p, "a string", each);
}

// The objects of the array in field `key` of `o` (absent or null: none; not an array: reported).
template <class Each>
void for_each_object(dom::object o, std::string_view key, const Path& path, Problems& p,
                     Each&& each) {
  dom::array items;
  if (!get_array(o, key, items, p, path)) return;
  for_each_object(items, Path(&path, key), p, each);
}

// A quantity is a string ("500m") or, as the API accepts too, a JSON number (2, 0.5).
std::optional<std::int64_t> quantity_milli(dom::element e, Problems& p, const Path& path) {
  std::string_view text;
  char buf[64];
  if (e.is_string()) {
    text = std::string_view(e);
  } else if (e.is_int64()) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, std::int64_t(e));
    text = std::string_view(buf, static_cast<std::size_t>(end - buf));
  } else if (e.is_uint64()) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, std::uint64_t(e));
    text = std::string_view(buf, static_cast<std::size_t>(end - buf));
  } else if (e.is_double()) {
    // Shortest text that reads back as the same double: 0.1 stays "0.1", not 0.1000000000000000055.
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, double(e));
    text = std::string_view(buf, static_cast<std::size_t>(end - buf));
  } else {
    wrong_type(p, path, e, "a quantity");
    return std::nullopt;
  }
  try {
    return Quantity::parse(text).milli();
  } catch (const InputError& err) {
    p.add(path, err.what());
    return std::nullopt;
  }
}

// A map of resource name -> quantity (requests, limits, overhead, allocatable). Names already set
// are reported in `seen` so limits can fill in only what requests leave out.
void read_resource_list(dom::object o, const Path& path, Resources& into, Problems& p,
                        std::vector<std::string_view>* seen = nullptr,
                        const std::vector<std::string_view>* skip = nullptr) {
  for (auto [key, value] : o) {
    if (skip && std::find(skip->begin(), skip->end(), key) != skip->end()) continue;
    const auto milli = quantity_milli(value, p, Path(&path, key));
    if (!milli) continue;
    if (*milli < 0) {
      p.add(Path(&path, key), "must not be negative");
      continue;
    }
    into.set(key, *milli);
    if (seen) seen->push_back(key);
  }
}

// A string -> string map (labels, annotations, nodeSelector).
void read_string_map(dom::object o, std::string_view key, const Path& path, Labels& into,
                     Problems& p) {
  dom::object m;
  if (!get_object(o, key, m, p, path)) return;
  const Path base(&path, key);
  for (auto [k, v] : m) {
    std::string_view s;
    if (v.get(s) != simdjson::SUCCESS) {
      wrong_type(p, Path(&base, k), v, "a string");
      continue;
    }
    // Go marshals maps with sorted keys, so appending at the end is the common case.
    into.emplace_hint(into.end(), k, s);
  }
}

std::optional<Time> get_time(dom::object o, std::string_view key, Problems& p, const Path& path) {
  const std::string_view s = get_string(o, key, p, path);
  if (s.empty()) return std::nullopt;
  try {
    return parse_rfc3339(s);
  } catch (const InputError& e) {
    p.add(Path(&path, key), e.what());
    return std::nullopt;
  }
}

bool parse_op(std::string_view s, SelectorOp& op) {
  if (s == "In")
    op = SelectorOp::In;
  else if (s == "NotIn")
    op = SelectorOp::NotIn;
  else if (s == "Exists")
    op = SelectorOp::Exists;
  else if (s == "DoesNotExist")
    op = SelectorOp::DoesNotExist;
  else if (s == "Gt")
    op = SelectorOp::Gt;
  else if (s == "Lt")
    op = SelectorOp::Lt;
  else
    return false;
  return true;
}

// One matchExpressions entry, checked the way the API server validates it.
std::optional<Requirement> read_requirement(dom::object o, const Path& path, Problems& p,
                                            bool allow_gt_lt) {
  Requirement r;
  r.key = std::string(get_string(o, "key", p, path));
  if (r.key.empty()) {
    p.add(Path(&path, "key"), "missing");
    return std::nullopt;
  }
  const std::string_view op = get_string(o, "operator", p, path);
  if (!parse_op(op, r.op) || (!allow_gt_lt && (r.op == SelectorOp::Gt || r.op == SelectorOp::Lt))) {
    p.add(Path(&path, "operator"), "unknown operator \"" + std::string(op) +
                                       "\" (expected In, NotIn, Exists, DoesNotExist" +
                                       (allow_gt_lt ? ", Gt, Lt)" : ")"));
    return std::nullopt;
  }
  dom::array values;
  const Path values_path(&path, "values");
  if (get_array(o, "values", values, p, path)) {
    for_each_string(values, values_path, p,
                    [&](std::string_view s, const Path&) { r.values.emplace_back(s); });
  }
  switch (r.op) {
    case SelectorOp::In:
    case SelectorOp::NotIn:
      if (r.values.empty()) p.add(values_path, "must not be empty for " + std::string(op));
      break;
    case SelectorOp::Exists:
    case SelectorOp::DoesNotExist:
      if (!r.values.empty()) p.add(values_path, "must be empty for " + std::string(op));
      break;
    case SelectorOp::Gt:
    case SelectorOp::Lt: {
      std::int64_t n = 0;
      if (r.values.size() != 1 ||
          std::from_chars(r.values[0].data(), r.values[0].data() + r.values[0].size(), n).ptr !=
              r.values[0].data() + r.values[0].size()) {
        p.add(values_path, "must be one integer for " + std::string(op));
      }
      break;
    }
  }
  return r;
}

LabelSelector read_label_selector(dom::object o, const Path& path, Problems& p) {
  LabelSelector s;
  read_string_map(o, "matchLabels", path, s.match_labels, p);
  for_each_object(o, "matchExpressions", path, p, [&](dom::object e, const Path& epath) {
    if (auto r = read_requirement(e, epath, p, false)) s.match_expressions.push_back(std::move(*r));
  });
  return s;
}

struct ObjectName {
  std::string ns;
  std::string name;
};

class Decoder {
 public:
  explicit Decoder(const std::vector<std::string>& gpu_models) : gpu_models_(gpu_models) {}

  // ---- Pod ----------------------------------------------------------------------------------
  Pod pod(dom::object o, Problems& p) const {
    Pod pod;
    dom::object meta;
    if (get_object(o, "metadata", meta, p, "")) {
      pod.name = std::string(get_string(meta, "name", p, "metadata"));
      pod.ns = std::string(get_string(meta, "namespace", p, "metadata"));
      pod.uid = std::string(get_string(meta, "uid", p, "metadata"));
      pod.resource_version = std::string(get_string(meta, "resourceVersion", p, "metadata"));
      read_string_map(meta, "labels", "metadata", pod.labels, p);
      read_string_map(meta, "annotations", "metadata", pod.annotations, p);
      if (auto t = get_time(meta, "creationTimestamp", p, "metadata")) pod.created = *t;
      dom::element del;
      pod.terminating = field(meta, "deletionTimestamp", del);
      read_owner(meta, pod.owner, p);
    }
    if (pod.name.empty()) p.add("metadata.name", "missing");
    // A manifest without a namespace lands in "default", as with kubectl apply.
    if (pod.ns.empty()) pod.ns = "default";
    pod.gang = read_gang(pod, p);

    dom::object spec;
    if (get_object(o, "spec", spec, p, "")) read_pod_spec(spec, pod, p);
    dom::object status;
    // A pod with no status at all is a manifest not yet submitted (the API server always
    // sets one): `fitscale plan` asks what it would need, so it stays Unschedulable. One the
    // API server returns is pending only once the scheduler said so.
    if (get_object(o, "status", status, p, "")) {
      pod.scheduler_verdict = scheduler_verdict(status, p);
      pod.nominated_node = std::string(get_string(status, "nominatedNodeName", p, "status"));
      if (auto t = get_time(status, "startTime", p, "status")) pod.started = *t;
      const std::string_view phase = get_string(status, "phase", p, "status");
      if (phase.empty() || phase == "Pending")
        pod.phase = PodPhase::Pending;
      else if (phase == "Running")
        pod.phase = PodPhase::Running;
      else if (phase == "Succeeded")
        pod.phase = PodPhase::Succeeded;
      else if (phase == "Failed")
        pod.phase = PodPhase::Failed;
      else if (phase == "Unknown")
        pod.phase = PodPhase::Unknown;
      else
        p.add("status.phase", "unknown phase \"" + std::string(phase) + "\"");
    }
    return pod;
  }

  // PodScheduled=False with reason Unschedulable: kube-scheduler tried every node.
  static SchedulerVerdict scheduler_verdict(dom::object status, Problems& p) {
    dom::array conditions;
    if (!get_array(status, "conditions", conditions, p, "status")) return SchedulerVerdict::NotYet;
    const Path path("status.conditions");
    for (dom::element e : conditions) {
      dom::object c;
      if (e.get(c) != simdjson::SUCCESS) continue;
      if (get_string(c, "type", p, path) != "PodScheduled") continue;
      return get_string(c, "status", p, path) == "False" &&
                     get_string(c, "reason", p, path) == "Unschedulable"
                 ? SchedulerVerdict::Unschedulable
                 : SchedulerVerdict::NotYet;
    }
    return SchedulerVerdict::NotYet;
  }

  // ---- Node ---------------------------------------------------------------------------------
  Node node(dom::object o, Problems& p) const {
    Node n;
    dom::object meta;
    if (get_object(o, "metadata", meta, p, "")) {
      n.name = std::string(get_string(meta, "name", p, "metadata"));
      Labels raw;
      read_string_map(meta, "labels", "metadata", raw, p);
      n.labels = raw;
      // Add the canonical key of every alias, so pods whose selectors were canonicalised match
      // nodes that carry only the old or Karpenter keys.
      for (const auto& [k, v] : raw) {
        auto [ck, cv] = canonical_label(k, v, gpu_models_);
        if (ck != k) n.labels.emplace(std::move(ck), std::move(cv));
      }
      if (auto t = get_time(meta, "creationTimestamp", p, "metadata")) n.created = *t;
    }
    if (n.name.empty()) p.add("metadata.name", "missing");
    dom::object spec;
    if (get_object(o, "spec", spec, p, "")) {
      n.provider_id = std::string(get_string(spec, "providerID", p, "spec"));
      n.unschedulable = get_bool(spec, "unschedulable", p, "spec");
      for_each_object(spec, "taints", "spec", p, [&](dom::object t, const Path& path) {
        Taint taint;
        taint.key = std::string(get_string(t, "key", p, path));
        taint.value = std::string(get_string(t, "value", p, path));
        const std::string effect(get_string(t, "effect", p, path));
        try {
          taint.effect = parse_taint_effect(effect);
        } catch (const InputError& err) {
          p.add(Path(&path, "effect"), err.what());
        }
        n.taints.push_back(std::move(taint));
      });
    }
    n.state = NodeState::Registered;
    dom::object status;
    if (get_object(o, "status", status, p, "")) {
      dom::object alloc;
      if (get_object(status, "allocatable", alloc, p, "status")) {
        read_resource_list(alloc, "status.allocatable", n.allocatable, p);
      }
      dom::array conditions;
      if (get_array(status, "conditions", conditions, p, "status")) {
        for (dom::element e : conditions) {
          dom::object c;
          if (e.get(c) != simdjson::SUCCESS) continue;
          if (get_string(c, "type", p, "status.conditions") != "Ready") continue;
          if (get_string(c, "status", p, "status.conditions") == "True") {
            n.state = NodeState::Ready;
            n.not_ready_since.reset();
          } else {
            n.not_ready_since = get_time(c, "lastTransitionTime", p, "status.conditions");
          }
        }
      }
    }
    return n;
  }

  // ---- PodDisruptionBudget ------------------------------------------------------------------
  PodDisruptionBudgetView pdb(dom::object o, Problems& p) const {
    PodDisruptionBudgetView b;
    dom::object meta;
    if (get_object(o, "metadata", meta, p, "")) {
      b.name = std::string(get_string(meta, "name", p, "metadata"));
      b.ns = std::string(get_string(meta, "namespace", p, "metadata"));
    }
    if (b.name.empty()) p.add("metadata.name", "missing");
    if (b.ns.empty()) b.ns = "default";
    dom::object spec;
    if (get_object(o, "spec", spec, p, "")) {
      dom::object sel;
      if (get_object(spec, "selector", sel, p, "spec"))
        b.selector = read_label_selector(sel, "spec.selector", p);
    }
    dom::object status;
    if (get_object(o, "status", status, p, "")) {
      if (auto v = get_int(status, "disruptionsAllowed", p, "status")) b.disruptions_allowed = *v;
    }
    return b;
  }

  // The name an error message gives an object, read without judging the rest of it.
  static ObjectName name_of(dom::object o) {
    ObjectName n;
    dom::object meta;
    if (o["metadata"].get(meta) == simdjson::SUCCESS) {
      std::string_view s;
      if (meta["name"].get(s) == simdjson::SUCCESS) n.name = std::string(s);
      if (meta["namespace"].get(s) == simdjson::SUCCESS) n.ns = std::string(s);
    }
    return n;
  }

 private:
  static void read_owner(dom::object meta, OwnerRef& owner, Problems& p) {
    for_each_object(meta, "ownerReferences", "metadata", p, [&](dom::object r, const Path& path) {
      // Only the managing controller decides what kind of pod this is.
      if (!get_bool(r, "controller", p, path)) return;
      owner.kind = std::string(get_string(r, "kind", p, path));
      owner.name = std::string(get_string(r, "name", p, path));
      owner.uid = std::string(get_string(r, "uid", p, path));
    });
  }

  // The one reader of gangs (model/gang_sources/gang_of.h); a size that is no number makes the
  // pod bad input, naming the field.
  static std::optional<Gang> read_gang(const Pod& pod, Problems& p) {
    GangReading r = gang_of(pod.labels, pod.annotations);
    if (r.problem) {
      p.add_at(r.problem->field, r.problem->message);
      return std::nullopt;
    }
    return std::move(r.gang);
  }

  // Requests of one container: requests, with limits standing in for what requests leave out.
  static Resources container_requests(dom::object c, const Path& path, Problems& p) {
    Resources r;
    dom::object res;
    if (!get_object(c, "resources", res, p, path)) return r;
    const Path rpath(&path, "resources");
    std::vector<std::string_view> seen;
    dom::object requests;
    if (get_object(res, "requests", requests, p, rpath))
      read_resource_list(requests, Path(&rpath, "requests"), r, p, &seen);
    dom::object limits;
    if (get_object(res, "limits", limits, p, rpath))
      read_resource_list(limits, Path(&rpath, "limits"), r, p, nullptr, &seen);
    return r;
  }

  void read_pod_spec(dom::object spec, Pod& pod, Problems& p) const {
    dom::array gates;
    if (get_array(spec, "schedulingGates", gates, p, "spec")) {
      std::size_t i = 0;
      const Path gates_path("spec.schedulingGates");
      for (dom::element e : gates) {
        const Path path(&gates_path, i++);
        dom::object g;
        // An entry without a readable name still holds the pod back: it stays a gate ("").
        if (e.get(g) != simdjson::SUCCESS) {
          wrong_type(p, path, e, "an object");
          pod.scheduling_gates.emplace_back();
          continue;
        }
        pod.scheduling_gates.emplace_back(get_string(g, "name", p, path));
      }
    }
    dom::array volumes;
    if (get_array(spec, "volumes", volumes, p, "spec")) {
      for (dom::element e : volumes) {
        dom::object claim;
        if (e["persistentVolumeClaim"].get(claim) != simdjson::SUCCESS) continue;
        std::string_view name;
        if (claim["claimName"].get(name) == simdjson::SUCCESS && !name.empty())
          pod.volume_claims.emplace_back(name);
      }
    }
    // Effective requests: what the scheduler reserves for the pod.
    Resources sum;
    for_each_object(spec, "containers", "spec", p, [&](dom::object c, const Path& path) {
      sum += container_requests(c, path, p);
    });
    Resources init_max;
    Resources sidecars;  // init containers with restartPolicy Always keep running beside the app
    for_each_object(spec, "initContainers", "spec", p, [&](dom::object c, const Path& path) {
      const Resources r = container_requests(c, path, p);
      if (get_string(c, "restartPolicy", p, path) == "Always") {
        sidecars += r;
        init_max = Resources::max(init_max, sidecars);
      } else {
        init_max = Resources::max(init_max, r + sidecars);
      }
    });
    Resources req = Resources::max(sum + sidecars, init_max);
    dom::object overhead;
    if (get_object(spec, "overhead", overhead, p, "spec")) {
      Resources o;
      read_resource_list(overhead, "spec.overhead", o, p);
      req += o;
    }
    req.pods = 1;
    pod.requests = std::move(req);

    Labels selector;
    read_string_map(spec, "nodeSelector", "spec", selector, p);
    for (auto& [k, v] : selector) pod.node_selector.insert(canonical_label(k, v, gpu_models_));

    dom::object affinity;
    if (get_object(spec, "affinity", affinity, p, "spec")) read_affinity(affinity, pod, p);
    read_spread(spec, pod, p);

    for_each_object(spec, "tolerations", "spec", p, [&](dom::object t, const Path& path) {
      Toleration tol;
      tol.key = std::string(get_string(t, "key", p, path));
      const std::string_view op = get_string(t, "operator", p, path);
      if (op == "Exists")
        tol.exists = true;
      else if (!op.empty() && op != "Equal")
        p.add(Path(&path, "operator"),
              "unknown operator \"" + std::string(op) + "\" (expected Equal or Exists)");
      tol.value = std::string(get_string(t, "value", p, path));
      const std::string effect(get_string(t, "effect", p, path));
      if (!effect.empty()) {
        try {
          tol.effect = parse_taint_effect(effect);
        } catch (const InputError& err) {
          p.add(Path(&path, "effect"), err.what());
        }
      }
      pod.tolerations.push_back(std::move(tol));
    });

    if (auto v = get_int(spec, "activeDeadlineSeconds", p, "spec")) {
      if (*v <= 0) p.add("spec.activeDeadlineSeconds", "must be positive");
      pod.active_deadline_s = *v;
    }
    if (auto v = get_int(spec, "priority", p, "spec")) pod.priority = static_cast<std::int32_t>(*v);
    pod.node_name = std::string(get_string(spec, "nodeName", p, "spec"));
  }

  void read_affinity(dom::object affinity, Pod& pod, Problems& p) const {
    dom::object na;
    if (get_object(affinity, "nodeAffinity", na, p, "spec.affinity")) {
      dom::object required;
      const Path rpath("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution");
      if (get_object(na, "requiredDuringSchedulingIgnoredDuringExecution", required, p,
                     "spec.affinity.nodeAffinity")) {
        for_each_object(
            required, "nodeSelectorTerms", rpath, p, [&](dom::object t, const Path& tpath) {
              pod.required_node_affinity.push_back(read_node_selector_term(t, tpath, p));
            });
      }
    }
    if (get_object(affinity, "nodeAffinity", na, p, "spec.affinity")) {
      for_each_object(na, "preferredDuringSchedulingIgnoredDuringExecution",
                      "spec.affinity.nodeAffinity", p, [&](dom::object t, const Path& tpath) {
                        PreferredNodeTerm pref;
                        pref.weight = read_weight(t, tpath, p);
                        dom::object term;
                        if (!get_object(t, "preference", term, p, tpath)) {
                          p.add(Path(&tpath, "preference"), "missing");
                          return;
                        }
                        const Path prefpath(&tpath, "preference");
                        read_match_expressions(term, prefpath, pref.preference, p);
                        pod.constraints.preferred_node_affinity.push_back(std::move(pref));
                      });
    }
    dom::object aff;
    if (get_object(affinity, "podAffinity", aff, p, "spec.affinity"))
      read_pod_affinity(aff, "spec.affinity.podAffinity", pod, false, p);
    dom::object anti;
    if (get_object(affinity, "podAntiAffinity", anti, p, "spec.affinity"))
      read_pod_affinity(anti, "spec.affinity.podAntiAffinity", pod, true, p);
  }

  // matchExpressions of a node selector term (Gt and Lt allowed), their keys canonical.
  void read_match_expressions(dom::object t, const Path& path, NodeSelectorTerm& term,
                              Problems& p) const {
    for_each_object(t, "matchExpressions", path, p, [&](dom::object x, const Path& xpath) {
      if (auto r = read_requirement(x, xpath, p, true))
        term.requirements.push_back(canonical_requirement(std::move(*r), gpu_models_));
    });
  }

  // One nodeSelectorTerm: matchExpressions, and matchFields on metadata.name.
  NodeSelectorTerm read_node_selector_term(dom::object t, const Path& tpath, Problems& p) const {
    NodeSelectorTerm term;
    read_match_expressions(t, tpath, term, p);
    for_each_object(t, "matchFields", tpath, p, [&](dom::object x, const Path& fpath) {
      auto r = read_requirement(x, fpath, p, true);
      if (!r) return;
      // The only field a node selector may use; a node's hostname label carries it.
      if (r->key != "metadata.name") {
        p.add(Path(&fpath, "key"), "only metadata.name is supported, got \"" + r->key + "\"");
        return;
      }
      r->key = std::string(label::kHostname);
      term.requirements.push_back(std::move(*r));
    });
    return term;
  }

  static std::int32_t read_weight(dom::object t, const Path& path, Problems& p) {
    const auto w = get_int(t, "weight", p, path);
    if (!w) {
      p.add(Path(&path, "weight"), "missing (1-100)");
      return 1;
    }
    if (*w < 1 || *w > 100) {
      p.add(Path(&path, "weight"), "must be in 1-100, got " + std::to_string(*w));
      return 1;
    }
    return static_cast<std::int32_t>(*w);
  }

  // One PodAffinityTerm (core/v1): labelSelector, namespaces, namespaceSelector, topologyKey
  // (required), matchLabelKeys and mismatchLabelKeys (their values from the pod's own labels,
  // ANDed into the selector as In / NotIn, as kube-apiserver merges them).
  static std::optional<PodAffinityTerm> read_pod_affinity_term(dom::object t, const Path& path,
                                                               const Pod& pod, Problems& p) {
    PodAffinityTerm term;
    term.topology_key = std::string(get_string(t, "topologyKey", p, path));
    if (term.topology_key.empty()) {
      p.add(Path(&path, "topologyKey"), "missing (required, e.g. topology.kubernetes.io/zone)");
      return std::nullopt;
    }
    dom::object sel;
    const bool has_selector = get_object(t, "labelSelector", sel, p, path);
    if (has_selector) term.selector = read_label_selector(sel, Path(&path, "labelSelector"), p);
    dom::array nss;
    if (get_array(t, "namespaces", nss, p, path)) {
      for_each_string(nss, Path(&path, "namespaces"), p,
                      [&](std::string_view s, const Path&) { term.namespaces.emplace_back(s); });
    }
    dom::object nsel;
    // The empty namespaceSelector ({}) selects every namespace; a non-empty one is read as
    // every namespace too (namespace labels are not in the snapshot): docs/planner.md.
    if (get_object(t, "namespaceSelector", nsel, p, path)) term.all_namespaces = true;
    for (const bool mismatch : {false, true}) {
      const std::string_view key = mismatch ? "mismatchLabelKeys" : "matchLabelKeys";
      dom::array keys;
      if (!get_array(t, key, keys, p, path)) continue;
      const Path kpath(&path, key);
      if (!has_selector) {
        p.add(kpath, "may not be set without labelSelector");
        continue;
      }
      for_each_string(keys, kpath, p, [&](std::string_view k, const Path&) {
        auto it = pod.labels.find(k);
        if (it == pod.labels.end()) return;  // a key the pod lacks is ignored
        term.selector.match_expressions.push_back(
            {std::string(k), mismatch ? SelectorOp::NotIn : SelectorOp::In, {it->second}});
      });
    }
    return term;
  }

  void read_pod_affinity(dom::object o, const char* where, Pod& pod, bool anti, Problems& p) const {
    const Path base(where);
    for_each_object(o, "requiredDuringSchedulingIgnoredDuringExecution", base, p,
                    [&](dom::object t, const Path& tpath) {
                      auto term = read_pod_affinity_term(t, tpath, pod, p);
                      if (!term) return;
                      // Hostname anti-affinity within the pod's namespace stays where the packer
                      // and the placement read it; a term without a selector selects no pods and
                      // constrains nothing.
                      dom::object sel;
                      if (anti && term->topology_key == label::kHostname &&
                          term->namespaces.empty() && !term->all_namespaces) {
                        if (get_object(t, "labelSelector", sel, p, tpath))
                          pod.anti_affinity_hostname.push_back(std::move(term->selector));
                        return;
                      }
                      if (!get_object(t, "labelSelector", sel, p, tpath)) return;
                      (anti ? pod.constraints.anti_affinity : pod.constraints.affinity)
                          .push_back(std::move(*term));
                    });
    for_each_object(
        o, "preferredDuringSchedulingIgnoredDuringExecution", base, p,
        [&](dom::object t, const Path& tpath) {
          WeightedPodAffinityTerm w;
          w.weight = read_weight(t, tpath, p);
          dom::object inner;
          const Path ipath(&tpath, "podAffinityTerm");
          if (!get_object(t, "podAffinityTerm", inner, p, tpath)) {
            p.add(ipath, "missing");
            return;
          }
          auto term = read_pod_affinity_term(inner, ipath, pod, p);
          if (!term) return;
          w.term = std::move(*term);
          (anti ? pod.constraints.preferred_anti_affinity : pod.constraints.preferred_affinity)
              .push_back(std::move(w));
        });
  }

  // spec.topologySpreadConstraints, validated as kube-apiserver validates them: maxSkew > 0,
  // topologyKey and whenUnsatisfiable required, minDomains > 0 and only with DoNotSchedule,
  // the two policies Honor or Ignore, matchLabelKeys only with a labelSelector and never a key
  // the selector already names.
  static void read_spread(dom::object spec, Pod& pod, Problems& p) {
    for_each_object(spec, "topologySpreadConstraints", "spec", p,
                    [&](dom::object t, const Path& path) {
                      if (auto c = read_spread_constraint(t, path, pod, p))
                        pod.constraints.spread.push_back(std::move(*c));
                    });
  }

  // One spread constraint; nullopt when a problem makes it meaningless (the pod is bad input).
  static std::optional<TopologySpreadConstraint> read_spread_constraint(dom::object t,
                                                                        const Path& path,
                                                                        const Pod& pod,
                                                                        Problems& p) {
    TopologySpreadConstraint c;
    const auto skew = get_int(t, "maxSkew", p, path);
    if (!skew) {
      p.add(Path(&path, "maxSkew"), "missing (required, at least 1)");
      return std::nullopt;
    }
    if (*skew < 1 || *skew > 1000000) {
      p.add(Path(&path, "maxSkew"), "must be at least 1, got " + std::to_string(*skew));
      return std::nullopt;
    }
    c.max_skew = static_cast<std::int32_t>(*skew);
    c.topology_key = std::string(get_string(t, "topologyKey", p, path));
    if (c.topology_key.empty()) {
      p.add(Path(&path, "topologyKey"), "missing (required, e.g. topology.kubernetes.io/zone)");
      return std::nullopt;
    }
    const std::string_view when = get_string(t, "whenUnsatisfiable", p, path);
    if (when == "DoNotSchedule") {
      c.when_unsatisfiable = WhenUnsatisfiable::DoNotSchedule;
    } else if (when == "ScheduleAnyway") {
      c.when_unsatisfiable = WhenUnsatisfiable::ScheduleAnyway;
    } else {
      p.add(Path(&path, "whenUnsatisfiable"),
            when.empty() ? std::string("missing (DoNotSchedule or ScheduleAnyway)")
                         : "unknown value \"" + std::string(when) +
                               "\" (expected DoNotSchedule or ScheduleAnyway)");
      return std::nullopt;
    }
    if (auto md = get_int(t, "minDomains", p, path)) {
      if (*md < 1 || *md > 1000000) {
        p.add(Path(&path, "minDomains"), "must be at least 1, got " + std::to_string(*md));
        return std::nullopt;
      }
      if (c.when_unsatisfiable != WhenUnsatisfiable::DoNotSchedule) {
        p.add(Path(&path, "minDomains"), "may be set only with whenUnsatisfiable DoNotSchedule");
        return std::nullopt;
      }
      c.min_domains = static_cast<std::int32_t>(*md);
    }
    for (const std::string_view key : {"nodeAffinityPolicy", "nodeTaintsPolicy"}) {
      const std::string_view v = get_string(t, key, p, path);
      if (v.empty()) continue;
      if (v != "Honor" && v != "Ignore") {
        p.add(Path(&path, key),
              "unknown value \"" + std::string(v) + "\" (expected Honor or Ignore)");
        continue;
      }
      const InclusionPolicy ip = v == "Honor" ? InclusionPolicy::Honor : InclusionPolicy::Ignore;
      (key == "nodeAffinityPolicy" ? c.node_affinity_policy : c.node_taints_policy) = ip;
    }
    dom::object sel;
    c.has_selector = get_object(t, "labelSelector", sel, p, path);
    if (c.has_selector) c.selector = read_label_selector(sel, Path(&path, "labelSelector"), p);
    dom::array keys;
    if (get_array(t, "matchLabelKeys", keys, p, path)) {
      const Path kpath(&path, "matchLabelKeys");
      if (!c.has_selector) p.add(kpath, "may not be set without labelSelector");
      for_each_string(keys, kpath, p, [&](std::string_view key, const Path& one) {
        const bool named =
            c.selector.match_labels.count(key) > 0 ||
            std::any_of(c.selector.match_expressions.begin(), c.selector.match_expressions.end(),
                        [&](const Requirement& r) { return r.key == key; });
        if (named) {
          p.add(one, "\"" + std::string(key) + "\" is also in labelSelector");
          return;
        }
        c.match_label_keys.emplace_back(key);
        auto it = pod.labels.find(key);
        if (it != pod.labels.end())
          c.selector.match_expressions.push_back({std::string(key), SelectorOp::In, {it->second}});
      });
    }
    return c;
  }

  const std::vector<std::string>& gpu_models_;
};

std::string_view kind_of_list(std::string_view list_kind) {
  // PodList -> Pod; a plain List has kinds on its items.
  if (list_kind.size() > 4 && list_kind.substr(list_kind.size() - 4) == "List") {
    return list_kind.substr(0, list_kind.size() - 4);
  }
  return {};
}

bool is_list_kind(std::string_view kind) {
  return kind.size() >= 4 && kind.substr(kind.size() - 4) == "List";
}

std::string describe(std::string_view kind, const ObjectName& n) {
  std::string s = kind == "Pod"                   ? "pod "
                  : kind == "Node"                ? "node "
                  : kind == "PodDisruptionBudget" ? "poddisruptionbudget "
                                                  : std::string(kind) + " ";
  if (n.name.empty()) return s + "(no name)";
  if (kind == "Node") return s + n.name;
  return s + (n.ns.empty() ? "default" : n.ns) + "/" + n.name;
}

std::string key_of(std::string_view kind, const ObjectName& n) {
  if (kind == "Node") return n.name;
  return (n.ns.empty() ? "default" : n.ns) + "/" + n.name;
}

// Where a malformed document goes wrong, as "line L, column C": simdjson says only what is
// wrong, so the error path asks a second parser for the place.
std::string json_syntax_error(std::string_view text, simdjson::error_code code) {
  try {
    const auto parsed = nlohmann::json::parse(text.begin(), text.end());
    (void)parsed;
  } catch (const nlohmann::json::parse_error& e) {
    std::size_t line = 1;
    std::size_t col = 1;
    const std::size_t end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    for (std::size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." -> the
    // reason.
    if (auto pos = what.find(": "); pos != std::string::npos) what = what.substr(pos + 2);
    return std::to_string(line) + ":" + std::to_string(col) + ": invalid JSON: " + what;
  } catch (const std::exception&) {
  }
  return std::string("invalid JSON: ") + simdjson::error_message(code);
}

}  // namespace

struct JsonDecoder::Impl {
  std::vector<std::string> gpu_models;
  dom::parser parser;
  // The input's one copy, with the padding simdjson reads past the end. Kept between calls like
  // the parser's own buffers: a list decoded again (an informer's relist) touches no new pages.
  std::unique_ptr<char[]> buffer;
  std::size_t buffer_capacity = 0;

  simdjson::ondemand::parser ondemand;

  // Copies `json` into `buffer` with simdjson's padding after it.
  void load(std::string_view json) {
    if (json.size() + simdjson::SIMDJSON_PADDING > buffer_capacity) {
      buffer_capacity = json.size() + simdjson::SIMDJSON_PADDING;
      buffer.reset(new char[buffer_capacity]);
    }
    std::memcpy(buffer.get(), json.data(), json.size());
    std::memset(buffer.get() + json.size(), 0, simdjson::SIMDJSON_PADDING);
  }

  // The whole loaded document as a DOM.
  dom::element parse_loaded(std::string_view json, std::string_view source) {
    dom::element root;
    if (auto err = parser.parse(buffer.get(), json.size(), false).get(root);
        err != simdjson::SUCCESS) {
      throw InputError(std::string(source) + (source.empty() ? "" : ":") +
                       json_syntax_error(json, err));
    }
    return root;
  }

  dom::element parse(std::string_view json, std::string_view source) {
    load(json);
    return parse_loaded(json, source);
  }

  // A large list is not built as one DOM: that would write about three times the input's size in
  // fresh memory (tape, strings, index), and the page faults would cost more than the parsing.
  // Instead one On Demand pass finds the kind and each item's text, and each item is then parsed
  // on its own into a small DOM that stays in cache.
  struct ListScan {
    std::string kind;
    bool has_items = false;
    std::vector<std::string_view> items;  // into `buffer`, which is padded at its end
  };

  // False when the document is not a plain object with an array of object items, or is
  // malformed: then the whole-document DOM path decides, and reports errors with their place.
  bool scan_list(std::string_view json, ListScan& scan) {
    namespace od = simdjson::ondemand;
    od::document doc;
    if (ondemand.iterate(buffer.get(), json.size(), buffer_capacity).get(doc) != simdjson::SUCCESS)
      return false;
    od::object top;
    if (doc.get_object().get(top) != simdjson::SUCCESS) return false;
    for (auto f : top) {
      od::field fld;
      std::string_view key;
      if (std::move(f).get(fld) != simdjson::SUCCESS ||
          fld.unescaped_key().get(key) != simdjson::SUCCESS) {
        return false;
      }
      if (key == "kind") {
        std::string_view k;
        if (fld.value().get_string().get(k) != simdjson::SUCCESS) return false;
        scan.kind = std::string(k);
      } else if (key == "items") {
        od::array arr;
        if (fld.value().get_array().get(arr) != simdjson::SUCCESS) return false;
        scan.has_items = true;
        for (auto el : arr) {
          od::value v;
          od::object o;
          std::string_view raw;
          if (el.get(v) != simdjson::SUCCESS || v.get_object().get(o) != simdjson::SUCCESS ||
              o.raw_json().get(raw) != simdjson::SUCCESS) {
            return false;
          }
          scan.items.push_back(raw);
        }
      }
    }
    // On Demand does not look past the object it was asked for: text after it is an error the
    // DOM path reports.
    std::size_t end = json.size();
    while (end > 0 && (json[end - 1] == ' ' || json[end - 1] == '\n' || json[end - 1] == '\r' ||
                       json[end - 1] == '\t'))
      --end;
    return end > 0 && json[end - 1] == '}' &&
           (scan.items.empty() ||
            scan.items.back().data() + scan.items.back().size() < buffer.get() + end);
  }

  // Calls `each(object, index)` for every item of a list document already loaded; false when the
  // document is no list or the fast path does not apply. `kind` receives the list's kind.
  template <class Reserve, class Each>
  bool for_each_item(std::string_view json, std::string_view source, std::string& kind,
                     Reserve reserve, Each each) {
    ListScan scan;
    if (!scan_list(json, scan)) return false;
    kind = scan.kind;
    if (!scan.kind.empty() && !is_list_kind(scan.kind)) return false;
    if (scan.kind.empty() && !scan.has_items) return false;
    reserve(
        scan.items.size());  // growing a vector of 100,000 pods twice over costs more than decoding
    for (std::size_t i = 0; i < scan.items.size(); ++i) {
      const std::string_view raw = scan.items[i];
      dom::element e;
      if (auto err = parser.parse(raw.data(), raw.size(), false).get(e); err != simdjson::SUCCESS) {
        throw InputError(std::string(source) + (source.empty() ? "" : ":") +
                         json_syntax_error(json, err));
      }
      each(dom::object(e), i);
    }
    return true;
  }

  // Decodes one object of `kind` into `out`. Errors start with `src` and, for an item of a
  // list (`item` >= 0), its index: "cluster.json: items[3]: pod ...".
  void decode_object(dom::object o, std::string_view kind, const std::string& src, long item,
                     DecodedObjects& out, bool skip_bad_pods) {
    Decoder d(gpu_models);
    Problems p;
    auto raise = [&] {
      std::string where = src;
      if (item >= 0)
        where += (where.empty() ? "" : ": ") + index("items", static_cast<std::size_t>(item));
      const std::string prefix = where.empty() ? "" : where + ": ";
      throw InputError(prefix + describe(kind, Decoder::name_of(o)) + ": " + p.first);
    };
    if (kind == "Pod") {
      Pod pod = d.pod(o, p);
      if (p.any()) {
        if (!skip_bad_pods) raise();
        out.bad_pods.emplace_back(key_of(kind, Decoder::name_of(o)), p.first);
        return;
      }
      out.pods.push_back(std::move(pod));
    } else if (kind == "Node") {
      Node n = d.node(o, p);
      if (p.any()) raise();
      out.nodes.push_back(std::move(n));
    } else if (kind == "PodDisruptionBudget") {
      PodDisruptionBudgetView b = d.pdb(o, p);
      if (p.any()) raise();
      out.pdbs.push_back(std::move(b));
    } else if (std::optional<GangSizer> sizer = gang_object_kind(o, kind)) {
      // A handful per cluster: read through the one reader each informer uses too.
      try {
        const nlohmann::json j = nlohmann::json::parse(simdjson::to_string(o));
        out.pod_groups.push_back(*sizer == GangSizer::JobSet ? decode_jobset(j)
                                                             : decode_pod_group(j, *sizer));
      } catch (const InputError& e) {
        p.first = e.what();
        raise();
      }
    } else {
      ++out.ignored;  // Services, Jobs, Events...: not what the planner looks at
    }
  }

  // The objects that size gangs (model/pod_group.h), told apart by kind and API group: Volcano
  // and coscheduling both have a kind PodGroup.
  static std::optional<GangSizer> gang_object_kind(dom::object o, std::string_view kind) {
    if (kind != "PodGroup" && kind != "JobSet") return std::nullopt;
    std::string_view api_version;
    if (o["apiVersion"].get(api_version) != simdjson::SUCCESS) return std::nullopt;
    const std::string_view group = api_version.substr(0, api_version.find('/'));
    if (kind == "JobSet")
      return group == kJobSetApiGroup ? std::optional(GangSizer::JobSet) : std::nullopt;
    if (group == kPodGroupApiGroup) return GangSizer::CoschedulingPodGroup;
    if (group == kVolcanoApiGroup) return GangSizer::VolcanoPodGroup;
    return std::nullopt;
  }

  void decode_root(dom::element root, std::string_view source, std::string_view kind_hint,
                   DecodedObjects& out, bool skip_bad_pods) {
    const std::string src(source);
    dom::object o;
    if (root.get(o) != simdjson::SUCCESS) {
      throw InputError(src + (src.empty() ? "" : ": ") +
                       "expected a Kubernetes object or List, got " +
                       std::string(type_name(root.type())));
    }
    std::string_view kind;
    if (o["kind"].get(kind) != simdjson::SUCCESS || kind.empty()) kind = kind_hint;
    if (kind.empty()) throw InputError(src + (src.empty() ? "" : ": ") + "missing \"kind\"");
    if (!is_list_kind(kind)) {
      decode_object(o, kind, src, -1, out, skip_bad_pods);
      return;
    }
    const std::string_view item_kind = kind_of_list(kind);
    dom::array items;
    dom::element items_el;
    if (!field(o, "items", items_el)) return;  // an empty list prints "items": [] or nothing
    if (items_el.get(items) != simdjson::SUCCESS) {
      throw InputError(src + (src.empty() ? "" : ": ") + "items: expected an array, got " +
                       std::string(type_name(items_el.type())));
    }
    if (item_kind == "Pod" || item_kind.empty()) out.pods.reserve(out.pods.size() + items.size());
    std::size_t i = 0;
    for (dom::element e : items) {
      const long at = static_cast<long>(i++);
      auto where = [&] {
        return (src.empty() ? "" : src + ": ") + index("items", static_cast<std::size_t>(at));
      };
      dom::object item;
      if (e.get(item) != simdjson::SUCCESS) {
        throw InputError(where() + ": expected an object, got " + std::string(type_name(e.type())));
      }
      std::string_view k;
      if (item["kind"].get(k) != simdjson::SUCCESS || k.empty()) k = item_kind;
      if (k.empty()) throw InputError(where() + ": missing \"kind\"");
      decode_object(item, k, src, at, out, skip_bad_pods);
    }
  }

  template <class T>
  T single(std::string_view json, std::string_view kind, std::vector<T> DecodedObjects::*member) {
    dom::element root = parse(json, "");
    dom::object o;
    if (root.get(o) != simdjson::SUCCESS) {
      throw InputError("expected a " + std::string(kind) + " object, got " +
                       std::string(type_name(root.type())));
    }
    DecodedObjects out;
    decode_object(o, kind, "", -1, out, false);
    return std::move((out.*member).front());
  }
};

JsonDecoder::JsonDecoder(std::vector<std::string> gpu_models) : impl_(std::make_unique<Impl>()) {
  impl_->gpu_models = std::move(gpu_models);
}
JsonDecoder::~JsonDecoder() = default;
JsonDecoder::JsonDecoder(JsonDecoder&&) noexcept = default;
JsonDecoder& JsonDecoder::operator=(JsonDecoder&&) noexcept = default;

DecodedObjects JsonDecoder::decode(std::string_view json, std::string_view source,
                                   bool skip_bad_pods) {
  DecodedObjects out;
  decode_into(json, source, "", skip_bad_pods, out);
  return out;
}

void JsonDecoder::decode_into(std::string_view json, std::string_view source,
                              std::string_view kind_hint, bool skip_bad_pods, DecodedObjects& out) {
  impl_->load(json);
  const std::string src(source);
  std::string list_kind;
  auto reserve = [&](std::size_t n) { out.pods.reserve(out.pods.size() + n); };
  const bool listed =
      impl_->for_each_item(json, source, list_kind, reserve, [&](dom::object item, std::size_t i) {
        std::string_view item_kind = list_kind.empty() ? kind_hint : kind_of_list(list_kind);
        std::string_view k;
        if (item["kind"].get(k) != simdjson::SUCCESS || k.empty()) k = item_kind;
        if (k.empty())
          throw InputError((src.empty() ? "" : src + ": ") + index("items", i) +
                           ": missing \"kind\"");
        impl_->decode_object(item, k, src, static_cast<long>(i), out, skip_bad_pods);
      });
  if (listed) return;
  dom::element root = impl_->parse_loaded(json, source);
  impl_->decode_root(root, source, kind_hint, out, skip_bad_pods);
}

Pod JsonDecoder::pod(std::string_view json) {
  return impl_->single(json, "Pod", &DecodedObjects::pods);
}
Node JsonDecoder::node(std::string_view json) {
  return impl_->single(json, "Node", &DecodedObjects::nodes);
}
PodDisruptionBudgetView JsonDecoder::pdb(std::string_view json) {
  return impl_->single(json, "PodDisruptionBudget", &DecodedObjects::pdbs);
}

void JsonDecoder::decode_list_items(
    std::string_view json, std::string_view kind, std::vector<std::pair<std::string, Pod>>* pods,
    std::vector<std::pair<std::string, Node>>* nodes,
    std::vector<std::pair<std::string, PodDisruptionBudgetView>>* pdbs,
    std::vector<std::pair<std::string, std::string>>& bad) {
  Decoder d(impl_->gpu_models);
  auto one = [&](dom::object item, std::size_t i) {
    const ObjectName name = Decoder::name_of(item);
    std::string key = name.name.empty() ? index("items", i) : key_of(kind, name);
    Problems p;
    if (kind == "Pod" && pods) {
      Pod v = d.pod(item, p);
      if (!p.any()) pods->emplace_back(std::move(key), std::move(v));
    } else if (kind == "Node" && nodes) {
      Node v = d.node(item, p);
      if (!p.any()) nodes->emplace_back(std::move(key), std::move(v));
    } else if (kind == "PodDisruptionBudget" && pdbs) {
      PodDisruptionBudgetView v = d.pdb(item, p);
      if (!p.any()) pdbs->emplace_back(std::move(key), std::move(v));
    } else {
      throw InputError("decode_list_items: no output for kind " + std::string(kind));
    }
    // `key` was moved above only when p.any() was false.
    if (p.any())
      bad.emplace_back(std::move(key), std::move(p.first));  // NOLINT(bugprone-use-after-move)
  };
  impl_->load(json);
  std::string list_kind;
  auto reserve = [&](std::size_t n) {
    if (pods) pods->reserve(pods->size() + n);
    if (nodes) nodes->reserve(nodes->size() + n);
  };
  if (impl_->for_each_item(json, "", list_kind, reserve, one)) return;

  dom::element root = impl_->parse_loaded(json, "");
  dom::object o;
  dom::array items;
  if (root.get(o) != simdjson::SUCCESS) throw InputError("list: expected an object");
  dom::element items_el;
  if (!field(o, "items", items_el)) return;
  if (items_el.get(items) != simdjson::SUCCESS) throw InputError("list: items: expected an array");
  std::size_t i = 0;
  for (dom::element e : items) {
    dom::object item;
    if (e.get(item) != simdjson::SUCCESS) {
      bad.emplace_back(index("items", i++), "expected an object");
      continue;
    }
    one(item, i++);
  }
}

Pod decode_pod_json(std::string_view json, const std::vector<std::string>& gpu_models) {
  return JsonDecoder(gpu_models).pod(json);
}
Node decode_node_json(std::string_view json, const std::vector<std::string>& gpu_models) {
  return JsonDecoder(gpu_models).node(json);
}
PodDisruptionBudgetView decode_pdb_json(std::string_view json) { return JsonDecoder({}).pdb(json); }

}  // namespace fitscale
