#include "model/budget_manifest.h"

#include "model/budget_spec.h"
#include "model/error.h"

namespace fitscale {

namespace {

std::string where(const std::string& source, const YAML::Node& at) {
  const YAML::Mark m = at.IsDefined() ? at.Mark() : YAML::Mark::null_mark();
  const std::string s = source.empty() ? "Budget" : source;
  return m.line >= 0 && !source.empty() ? s + ":" + std::to_string(m.line + 1) : s;
}

[[noreturn]] void fail(const std::string& source, const YAML::Node& at, const std::string& msg) {
  throw InputError(where(source, at) + ": " + msg);
}

std::string scalar(const YAML::Node& parent, const char* key) {
  const YAML::Node v = parent[key];
  return v && v.IsScalar() ? v.Scalar() : std::string();
}

Micros usd_field(const YAML::Node& status, const char* key) {
  const YAML::Node v = status[key];
  if (!v) return 0;
  double usd = 0;
  if (!v.IsScalar() || !YAML::convert<double>::decode(v, usd) || usd < 0 || usd > 1e12) {
    throw InputError(std::string("status.") + key + ": must be a number of dollars >= 0");
  }
  return dollars_to_micros(usd);
}

BudgetStatus read_status(const YAML::Node& s) {
  if (!s.IsMap()) throw InputError("status: must be a map");
  BudgetStatus st;
  st.day = scalar(s, "day");
  st.month = scalar(s, "month");
  st.spent_today = usd_field(s, "spentToday");
  st.spent_this_month = usd_field(s, "spentThisMonth");
  st.committed_micros_per_hour = usd_field(s, "committedUsdPerHour");
  if (const YAML::Node a = s["alertsSent"]) {
    if (!a.IsSequence()) throw InputError("status.alertsSent: must be a list of strings");
    for (const auto& item : a) {
      if (!item.IsScalar()) throw InputError("status.alertsSent: must be a list of strings");
      st.alerts_sent.push_back(item.Scalar());
    }
  }
  if (const std::string at = scalar(s, "updatedAt"); !at.empty()) {
    st.updated_at = parse_rfc3339(at);  // InputError names the text
  }
  return st;
}

}  // namespace

bool is_budget_manifest(const YAML::Node& doc) {
  if (!doc.IsMap()) return false;
  return scalar(doc, "kind") == "Budget" && scalar(doc, "apiVersion").rfind("fitscale.io/", 0) == 0;
}

BudgetObject read_budget_manifest(const YAML::Node& doc, const std::string& source,
                                  std::string_view own_ns) {
  if (!doc.IsMap()) fail(source, doc, "a Budget must be a map");
  if (scalar(doc, "apiVersion") != "fitscale.io/v1alpha1") {
    fail(source, doc["apiVersion"],
         "apiVersion: must be fitscale.io/v1alpha1, got \"" + scalar(doc, "apiVersion") + "\"");
  }
  if (scalar(doc, "kind") != "Budget") fail(source, doc["kind"], "kind: must be Budget");
  const YAML::Node meta = doc["metadata"];
  if (!meta || !meta.IsMap()) fail(source, doc, "metadata: must be a map with name and namespace");
  BudgetObject o;
  o.name = scalar(meta, "name");
  o.ns = scalar(meta, "namespace");
  o.uid = scalar(meta, "uid");
  o.resource_version = scalar(meta, "resourceVersion");
  if (o.name.empty()) fail(source, meta, "metadata.name: must be set");
  if (o.ns.empty()) {
    fail(source, meta,
         "Budget " + o.name + ": metadata.namespace: must be set (the namespace it caps)");
  }
  o.scope = budget_scope(o.ns, o.name, own_ns);
  const YAML::Node spec = doc["spec"];
  if (!spec) fail(source, doc, "Budget " + o.key() + ": spec: must be set");
  // Errors read "budgets.yaml:7: Budget team-a/caps: spec.usdPerDay: ..." for a file, and
  // "Budget team-a/caps: spec.usdPerDay: ..." for an object from the API (no lines).
  const std::string reader_source = source.empty() ? "Budget " + o.key() : source;
  const std::string path = source.empty() ? "spec" : "Budget " + o.key() + ": spec";
  if (o.scope == BudgetScope::Cluster)
    o.cluster_caps = read_cluster_budget_spec(spec, reader_source, path);
  else
    o.caps = read_namespace_budget_spec(spec, reader_source, path);
  if (const YAML::Node s = doc["status"]; s && !s.IsNull()) {
    try {
      o.status = read_status(s);
    } catch (const InputError& e) {
      o.status_problem = e.what();
    }
  }
  return o;
}

}  // namespace fitscale
