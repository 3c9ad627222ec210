// Field selectors on core/v1 Events, as kube-apiserver serves them (its event strategy's
// selectable fields): `kubectl describe` finds an object's events with
// involvedObject.name/namespace/kind/uid, `kubectl get events --field-selector` with the others.
// Any other field label is a 400, as there.
#include <array>
#include <string_view>

#include "vcluster/api_error.h"
#include "vcluster/selectors.h"

namespace fitscale::vcluster {

namespace {

constexpr std::array<std::string_view, 12> kEventFields = {"metadata.name",
                                                           "metadata.namespace",
                                                           "involvedObject.kind",
                                                           "involvedObject.namespace",
                                                           "involvedObject.name",
                                                           "involvedObject.uid",
                                                           "involvedObject.apiVersion",
                                                           "involvedObject.resourceVersion",
                                                           "involvedObject.fieldPath",
                                                           "reason",
                                                           "reportingComponent",
                                                           "type"};

}  // namespace

std::vector<FieldRequirement> parse_field_selector_for(std::string_view resource,
                                                       std::string_view text) {
  std::vector<FieldRequirement> fields = parse_field_selector(text);
  if (resource != "events") return fields;
  for (auto& f : fields) {
    // `source` is the reporting component (source.component in core/v1).
    if (f.path == "source") {
      f.path = "source.component";
      continue;
    }
    bool known = false;
    for (auto k : kEventFields) known = known || f.path == k;
    if (!known) throw bad_request("field label not supported: " + f.path);
  }
  return fields;
}

}  // namespace fitscale::vcluster
