#include "vcluster/events.h"

#include <fmt/format.h>

#include "model/time.h"
#include "vcluster/object_meta.h"

namespace fitscale::vcluster {

void record_event(ObjectStore& store, const Clock& clock, const nlohmann::json& about,
                  const std::string& type, const std::string& reason, const std::string& message,
                  const std::string& component) {
  std::string ns = namespace_of(about);
  if (ns.empty()) ns = "default";  // events about nodes live in default, as kubelet's do
  const std::string now = format_rfc3339(clock.now());
  nlohmann::json ev = {{"apiVersion", "v1"},
                       {"kind", "Event"},
                       {"metadata", {{"generateName", name_of(about) + "."}, {"namespace", ns}}},
                       {"involvedObject",
                        {{"kind", about.value("kind", "")},
                         {"apiVersion", about.value("apiVersion", "v1")},
                         {"name", name_of(about)},
                         {"uid", uid_of(about)}}},
                       {"reason", reason},
                       {"message", message},
                       {"type", type},
                       {"source", {{"component", component}}},
                       {"reportingComponent", component},
                       {"firstTimestamp", now},
                       {"lastTimestamp", now},
                       {"count", 1}};
  if (!namespace_of(about).empty()) ev["involvedObject"]["namespace"] = namespace_of(about);
  // The version the event is about, as kube components write it (involvedObject is a full
  // ObjectReference); a selector on involvedObject.resourceVersion finds it.
  if (auto rv = meta_string(about, "resourceVersion"); !rv.empty())
    ev["involvedObject"]["resourceVersion"] = rv;
  store.create("events", ns, std::move(ev));
}

}  // namespace fitscale::vcluster
