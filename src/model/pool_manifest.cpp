#include "model/pool_manifest.h"

#include <yaml-cpp/yaml.h>

#include "model/error.h"
#include "model/pool_config.h"

namespace fitscale {

namespace {

std::string scalar(const YAML::Node& parent, const char* key) {
  const YAML::Node v = parent[key];
  return v && v.IsScalar() ? v.Scalar() : std::string();
}

[[noreturn]] void fail(const std::string& source, const YAML::Node& at, const std::string& msg) {
  const YAML::Mark m = at.IsDefined() ? at.Mark() : YAML::Mark::null_mark();
  const std::string s = source.empty() ? "Pool" : source;
  throw InputError((m.line >= 0 && !source.empty() ? s + ":" + std::to_string(m.line + 1) : s) +
                   ": " + msg);
}

}  // namespace

bool is_pool_manifest(const YAML::Node& doc) {
  if (!doc.IsMap()) return false;
  return scalar(doc, "kind") == "Pool" && scalar(doc, "apiVersion").rfind("fitscale.io/", 0) == 0;
}

PoolObject read_pool_manifest(const YAML::Node& doc, const std::string& source) {
  if (!doc.IsMap()) fail(source, doc, "a Pool must be a map");
  if (scalar(doc, "apiVersion") != "fitscale.io/v1alpha1") {
    fail(source, doc["apiVersion"],
         "apiVersion: must be fitscale.io/v1alpha1, got \"" + scalar(doc, "apiVersion") + "\"");
  }
  if (scalar(doc, "kind") != "Pool") fail(source, doc["kind"], "kind: must be Pool");
  const YAML::Node meta = doc["metadata"];
  if (!meta || !meta.IsMap()) fail(source, doc, "metadata: must be a map with a name");
  PoolObject o;
  o.name = scalar(meta, "name");
  o.uid = scalar(meta, "uid");
  o.resource_version = scalar(meta, "resourceVersion");
  if (o.name.empty()) fail(source, meta, "metadata.name: must be set");
  // Errors from the API name the object; from a file, the file and line.
  const std::string where = source.empty() ? "Pool " + o.name : source;
  // An object from the API is named, not located (its JSON has no lines the user saw).
  auto fail_here = [&](const YAML::Node& at, const std::string& msg) {
    if (source.empty()) throw InputError(where + ": " + msg);
    fail(source, at, msg);
  };
  if (!is_pool_name(o.name))
    fail_here(meta["name"],
              "metadata.name: must be a DNS label (lower case letters, digits, '-'), got \"" +
                  o.name + "\"");
  // The spec is one `pools:` entry without its name (the object's name is the pool's).
  const YAML::Node spec = doc["spec"];
  if (spec && spec.IsMap() && spec["name"])
    fail_here(spec["name"], "spec.name: the pool's name is metadata.name");
  if (spec)
    o.pool = read_pool_spec(spec, where, "spec", o.name);
  else
    o.pool.name = o.name;
  return o;
}

}  // namespace fitscale
