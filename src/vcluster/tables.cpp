#include "vcluster/tables.h"

#include <fmt/format.h>

#include "model/error.h"
#include "vcluster/object_meta.h"

namespace fitscale::vcluster {
namespace {

using nlohmann::json;

struct Column {
  const char* name;
  const char* type;    // string, integer, date
  const char* format;  // "name" for the name column, else ""
  int priority;        // 1 = -o wide only
  const char* description;
};

json column_definitions(const std::vector<Column>& cols) {
  json out = json::array();
  for (const auto& c : cols) {
    out.push_back({{"name", c.name},
                   {"type", c.type},
                   {"format", c.format},
                   {"description", c.description},
                   {"priority", c.priority}});
  }
  return out;
}

const json& field(const json& obj, std::initializer_list<const char*> path) {
  static const json kNull;
  const json* at = &obj;
  for (const char* p : path) {
    if (!at->is_object() || !at->contains(p)) return kNull;
    at = &(*at)[p];
  }
  return *at;
}

std::string str(const json& j, const std::string& fallback = "") {
  return j.is_string() ? j.get<std::string>() : fallback;
}

std::string age(const json& obj, const char* const* keys, Time now) {
  for (; *keys; ++keys) {
    const json& t = field(obj, {"metadata", *keys});
    if (t.is_string()) {
      try {
        return human_duration(now - parse_rfc3339(t.get<std::string>()));
      } catch (const InputError&) {
        return "<invalid>";
      }
    }
  }
  return "<unknown>";
}

std::string age_of(const json& obj, Time now) {
  static const char* const kKeys[] = {"creationTimestamp", nullptr};
  return age(obj, kKeys, now);
}

std::string since(const json& t, Time now) {
  if (!t.is_string()) return "<unknown>";
  try {
    return human_duration(now - parse_rfc3339(t.get<std::string>()));
  } catch (const InputError&) {
    return "<invalid>";
  }
}

std::string condition_status(const json& obj, const std::string& type) {
  const json& conds = field(obj, {"status", "conditions"});
  if (!conds.is_array()) return "";
  for (const auto& c : conds) {
    if (c.is_object() && str(c.value("type", json())) == type)
      return str(c.value("status", json()));
  }
  return "";
}

// The STATUS column of `kubectl get pods`: the phase, or the reason a container is waiting or
// terminated, or Terminating.
std::string pod_status(const json& pod) {
  std::string reason = str(field(pod, {"status", "reason"}), str(field(pod, {"status", "phase"})));
  const json& statuses = field(pod, {"status", "containerStatuses"});
  if (statuses.is_array()) {
    for (const auto& cs : statuses) {
      const std::string waiting = str(field(cs, {"state", "waiting", "reason"}));
      const std::string terminated = str(field(cs, {"state", "terminated", "reason"}));
      if (!waiting.empty()) {
        reason = waiting;
      } else if (!terminated.empty() && reason != "Succeeded") {
        reason = terminated;
      }
    }
  }
  if (field(pod, {"metadata", "deletionTimestamp"}).is_string()) reason = "Terminating";
  return reason.empty() ? "Pending" : reason;
}

json pod_row(const json& pod, Time now) {
  const json& containers = field(pod, {"spec", "containers"});
  const json& statuses = field(pod, {"status", "containerStatuses"});
  int total = containers.is_array() ? static_cast<int>(containers.size()) : 0;
  int ready = 0;
  long restarts = 0;
  if (statuses.is_array()) {
    for (const auto& cs : statuses) {
      if (cs.value("ready", false)) ++ready;
      if (cs.contains("restartCount") && cs["restartCount"].is_number_integer()) {
        restarts += cs["restartCount"].get<long>();
      }
    }
  }
  const std::string ip = str(field(pod, {"status", "podIP"}), "<none>");
  const std::string node = str(field(pod, {"spec", "nodeName"}), "<none>");
  const std::string nominated = str(field(pod, {"status", "nominatedNodeName"}), "<none>");
  return json::array({name_of(pod), fmt::format("{}/{}", ready, total), pod_status(pod),
                      std::to_string(restarts), age_of(pod, now), ip.empty() ? "<none>" : ip,
                      node.empty() ? "<none>" : node, nominated, "<none>"});
}

json node_row(const json& node, Time now) {
  std::string status = condition_status(node, "Ready") == "True" ? "Ready" : "NotReady";
  if (condition_status(node, "Ready").empty()) status = "Unknown";
  if (field(node, {"spec", "unschedulable"}) == true) status += ",SchedulingDisabled";
  std::string roles;
  const json& labels = field(node, {"metadata", "labels"});
  if (labels.is_object()) {
    const std::string prefix = "node-role.kubernetes.io/";
    for (auto it = labels.begin(); it != labels.end(); ++it) {
      if (it.key().rfind(prefix, 0) == 0) {
        roles += (roles.empty() ? "" : ",") + it.key().substr(prefix.size());
      }
    }
  }
  std::string internal_ip = "<none>";
  std::string external_ip = "<none>";
  const json& addresses = field(node, {"status", "addresses"});
  if (addresses.is_array()) {
    for (const auto& a : addresses) {
      const std::string type = str(a.value("type", json()));
      if (type == "InternalIP") internal_ip = str(a.value("address", json()), internal_ip);
      if (type == "ExternalIP") external_ip = str(a.value("address", json()), external_ip);
    }
  }
  auto info = [&](const char* key) {
    return str(field(node, {"status", "nodeInfo", key}), "<unknown>");
  };
  return json::array({name_of(node), status, roles.empty() ? "<none>" : roles, age_of(node, now),
                      info("kubeletVersion"), internal_ip, external_ip, info("osImage"),
                      info("kernelVersion"), info("containerRuntimeVersion")});
}

json job_row(const json& job, Time now) {
  std::string status = "Running";
  if (condition_status(job, "Complete") == "True") status = "Complete";
  if (condition_status(job, "Failed") == "True") status = "Failed";
  if (condition_status(job, "Suspended") == "True") status = "Suspended";
  const json& completions = field(job, {"spec", "completions"});
  const long succeeded = field(job, {"status", "succeeded"}).is_number_integer()
                             ? field(job, {"status", "succeeded"}).get<long>()
                             : 0;
  const std::string comp = completions.is_number_integer()
                               ? fmt::format("{}/{}", succeeded, completions.get<long>())
                               : fmt::format("{}/1 of {}", succeeded, 1);
  std::string duration;
  const json& start = field(job, {"status", "startTime"});
  const json& done = field(job, {"status", "completionTime"});
  if (start.is_string()) {
    try {
      const Time s = parse_rfc3339(start.get<std::string>());
      const Time e = done.is_string() ? parse_rfc3339(done.get<std::string>()) : now;
      duration = human_duration(e - s);
    } catch (const InputError&) {
      duration = "<invalid>";
    }
  }
  std::string names;
  std::string images;
  const json& containers = field(job, {"spec", "template", "spec", "containers"});
  if (containers.is_array()) {
    for (const auto& c : containers) {
      names += (names.empty() ? "" : ",") + str(c.value("name", json()));
      images += (images.empty() ? "" : ",") + str(c.value("image", json()));
    }
  }
  std::string selector;
  const json& match = field(job, {"spec", "selector", "matchLabels"});
  if (match.is_object()) {
    for (auto it = match.begin(); it != match.end(); ++it) {
      selector += (selector.empty() ? "" : ",") + it.key() + "=" + str(it.value());
    }
  }
  return json::array({name_of(job), status, comp, duration, age_of(job, now), names, images,
                      selector.empty() ? "<none>" : selector});
}

json event_row(const json& ev, Time now) {
  json last = ev.value("lastTimestamp", json());
  if (!last.is_string()) last = ev.value("eventTime", json());
  if (!last.is_string()) last = field(ev, {"metadata", "creationTimestamp"});
  json first = ev.value("firstTimestamp", json());
  if (!first.is_string()) first = last;
  const std::string object =
      str(field(ev, {"involvedObject", "kind"})) + "/" + str(field(ev, {"involvedObject", "name"}));
  std::string source =
      str(field(ev, {"source", "component"}), str(ev.value("reportingComponent", json())));
  const long count =
      ev.contains("count") && ev["count"].is_number_integer() ? ev["count"].get<long>() : 1;
  return json::array({since(last, now), str(ev.value("type", json())),
                      str(ev.value("reason", json())), object, str(ev.value("message", json())),
                      str(field(ev, {"involvedObject", "fieldPath"})), source, since(first, now),
                      std::to_string(count), name_of(ev)});
}

json namespace_row(const json& ns, Time now) {
  return json::array({name_of(ns), str(field(ns, {"status", "phase"}), "Active"), age_of(ns, now)});
}

json default_row(const json& obj, Time) {
  return json::array({name_of(obj), field(obj, {"metadata", "creationTimestamp"})});
}

}  // namespace

bool wants_table(std::string_view accept) {
  // Parameters may come in any order and with spaces: look for as=Table and g=meta.k8s.io in one
  // of the comma-separated media ranges.
  std::size_t start = 0;
  while (start <= accept.size()) {
    std::size_t end = accept.find(',', start);
    if (end == std::string_view::npos) end = accept.size();
    std::string range(accept.substr(start, end - start));
    range.erase(std::remove(range.begin(), range.end(), ' '), range.end());
    if (range.find(";as=Table") != std::string::npos &&
        range.find(";g=meta.k8s.io") != std::string::npos &&
        range.rfind("application/json", 0) == 0) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

std::string human_duration(Seconds s) {
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 120) return fmt::format("{}s", s);
  const Seconds m = s / 60;
  if (m < 10) return s % 60 == 0 ? fmt::format("{}m", m) : fmt::format("{}m{}s", m, s % 60);
  if (m < 180) return fmt::format("{}m", m);
  const Seconds h = s / 3600;
  if (h < 8) return m % 60 == 0 ? fmt::format("{}h", h) : fmt::format("{}h{}m", h, m % 60);
  if (h < 48) return fmt::format("{}h", h);
  if (h < Seconds{24} * 8)
    return h % 24 == 0 ? fmt::format("{}d", h / 24) : fmt::format("{}d{}h", h / 24, h % 24);
  if (h < Seconds{24} * 365 * 2) return fmt::format("{}d", h / 24);
  if (h < Seconds{24} * 365 * 8) {
    const Seconds d = h / 24 - 365 * (h / 24 / 365);
    return d == 0 ? fmt::format("{}y", h / 24 / 365) : fmt::format("{}y{}d", h / 24 / 365, d);
  }
  return fmt::format("{}y", h / 24 / 365);
}

json to_table(const ResourceInfo& r, const std::vector<json>& objects, const json& list_metadata,
              Time now, const std::string& include_object) {
  std::vector<Column> cols;
  json (*row)(const json&, Time) = default_row;
  const char* kName = "Name must be unique within a namespace.";
  if (r.plural == "pods") {
    cols = {{"Name", "string", "name", 0, kName},
            {"Ready", "string", "", 0,
             "The aggregate readiness state of this pod for accepting traffic."},
            {"Status", "string", "", 0, "The aggregate status of the containers in this pod."},
            {"Restarts", "string", "", 0,
             "The number of times the containers in this pod have been restarted."},
            {"Age", "string", "", 0, "CreationTimestamp of the pod."},
            {"IP", "string", "", 1, "IP address allocated to the pod."},
            {"Node", "string", "", 1, "Name of the Node this pod runs on."},
            {"Nominated Node", "string", "", 1, "Name of the node nominated by the scheduler."},
            {"Readiness Gates", "string", "", 1, "Pod readiness gates."}};
    row = pod_row;
  } else if (r.plural == "nodes") {
    cols = {
        {"Name", "string", "name", 0, kName},
        {"Status", "string", "", 0, "The status of the node"},
        {"Roles", "string", "", 0, "The roles of the node"},
        {"Age", "string", "", 0, "CreationTimestamp of the node."},
        {"Version", "string", "", 0, "Kubelet Version reported by the node."},
        {"Internal-IP", "string", "", 1, "List of internal IPs."},
        {"External-IP", "string", "", 1, "List of external IPs."},
        {"OS-Image", "string", "", 1, "OS Image reported by the node."},
        {"Kernel-Version", "string", "", 1, "Kernel Version reported by the node."},
        {"Container-Runtime", "string", "", 1, "Container Runtime Version reported by the node."}};
    row = node_row;
  } else if (r.plural == "jobs") {
    cols = {{"Name", "string", "name", 0, kName},
            {"Status", "string", "", 0, "Status of the job."},
            {"Completions", "string", "", 0, "The desired number of successfully finished pods."},
            {"Duration", "string", "", 0, "Time required to complete the job."},
            {"Age", "string", "", 0, "CreationTimestamp of the job."},
            {"Containers", "string", "", 1, "Names of each container in the template."},
            {"Images", "string", "", 1, "Images referenced by each container in the template."},
            {"Selector", "string", "", 1, "Query over pods that should match the pod count."}};
    row = job_row;
  } else if (r.plural == "events") {
    cols = {{"Last Seen", "string", "", 0, "Time since the most recent occurrence."},
            {"Type", "string", "", 0, "Type of this event (Normal, Warning)."},
            {"Reason", "string", "", 0, "Why the action was taken."},
            {"Object", "string", "", 0, "The object this event is about."},
            {"Message", "string", "", 0, "A human-readable description of the status."},
            {"Subobject", "string", "", 1, "The field of the object this event is about."},
            {"Source", "string", "", 1, "The component reporting this event."},
            {"First Seen", "string", "", 1, "Time since the first occurrence."},
            {"Count", "string", "", 1, "The number of times this event has occurred."},
            {"Name", "string", "name", 1, kName}};
    row = event_row;
  } else if (r.plural == "namespaces") {
    cols = {{"Name", "string", "name", 0, kName},
            {"Status", "string", "", 0, "The status of the namespace"},
            {"Age", "string", "", 0, "CreationTimestamp of the namespace."}};
    row = namespace_row;
  } else {
    cols = {{"Name", "string", "name", 0, kName},
            {"Created At", "date", "", 0, "CreationTimestamp of the object."}};
  }
  json rows = json::array();
  for (const auto& obj : objects) {
    json entry = {{"cells", row(obj, now)}};
    if (include_object == "Object") {
      entry["object"] = obj;
    } else if (include_object != "None") {
      entry["object"] = {{"kind", "PartialObjectMetadata"},
                         {"apiVersion", "meta.k8s.io/v1"},
                         {"metadata", obj.value("metadata", json::object())}};
    }
    rows.push_back(std::move(entry));
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", list_metadata},
          {"columnDefinitions", column_definitions(cols)},
          {"rows", rows}};
}

}  // namespace fitscale::vcluster
