#include "cli/pool_manifest_file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "model/error.h"
#include "model/file_text.h"
#include "model/pool_manifest.h"
#include "model/yaml_documents.h"

namespace fitscale::cli {

namespace {

std::string scalar(const YAML::Node& n, const char* key) {
  return n.IsMap() && n[key] && n[key].IsScalar() ? n[key].Scalar() : std::string();
}

bool is_karpenter(const YAML::Node& d) {
  const std::string api = scalar(d, "apiVersion");
  return api.rfind("karpenter.sh/", 0) == 0 || api.rfind("karpenter.k8s.aws/", 0) == 0;
}

}  // namespace

std::vector<Pool> read_pool_files(const std::vector<std::string>& paths,
                                  std::vector<std::string>& errors) {
  std::vector<Pool> out;
  for (const std::string& path : paths) {
    std::vector<YAML::Node> objects;
    try {
      objects = manifest_objects(load_yaml_documents(read_file_text(path, "Pool manifest"), path));
    } catch (const InputError& e) {
      errors.push_back(e.what());
      continue;
    }
    if (objects.empty()) errors.push_back(path + ": holds no Pool");
    for (const auto& o : objects) {
      const YAML::Mark m = o.Mark();
      const std::string where = m.line >= 0 ? path + ":" + std::to_string(m.line + 1) : path;
      if (!is_pool_manifest(o)) {
        errors.push_back(where + ": not a Pool (apiVersion fitscale.io/v1alpha1, kind Pool)" +
                         (is_karpenter(o)
                              ? "; a Karpenter " + scalar(o, "kind") +
                                    " becomes Pools with `fitscale import karpenter " + path + "`"
                              : ""));
        continue;
      }
      try {
        PoolObject p = read_pool_manifest(o, path);
        if (std::any_of(out.begin(), out.end(), [&](const Pool& q) { return q.name == p.name; })) {
          errors.push_back(where + ": metadata.name: Pool \"" + p.name + "\" is given twice");
          continue;
        }
        out.push_back(std::move(p.pool));
      } catch (const InputError& e) {
        errors.push_back(e.what());
      }
    }
  }
  return out;
}

std::string manifest_hint(const std::string& path) {
  YAML::Node doc;
  try {
    // The first object is enough to tell a manifest (often several documents) from a config.
    const auto objects =
        manifest_objects(load_yaml_documents(read_file_text(path, "config file"), path));
    if (objects.empty()) return "";
    doc = objects.front();
  } catch (const std::exception&) {
    return "";  // the config reader reports it with its line
  }
  if (is_pool_manifest(doc))
    return path + ": is a Pool manifest, not a config file: check it with --pools " + path;
  if (is_karpenter(doc))
    return path + ": is a Karpenter " + scalar(doc, "kind") +
           ", not a config file: turn it into Pools with `fitscale import karpenter " + path + "`";
  return "";
}

}  // namespace fitscale::cli
