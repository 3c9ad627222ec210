// `fitscale import karpenter FILE... [-o FILE]`: Karpenter NodePools (karpenter.sh/v1) and their
// EC2NodeClasses (karpenter.k8s.aws/v1) as fitscale Pool manifests (docs/migrating.md). What has
// no equivalent is a warning on stderr and a comment above the Pool; the output is checked with
// the reader `fitscale run` uses before it is written.
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "model/error.h"
#include "model/file_text.h"
#include "model/karpenter_import.h"
#include "model/pool_manifest.h"
#include "model/yaml_documents.h"

namespace fitscale::cli {

namespace {

int import_karpenter_files(const std::vector<std::string>& files, const std::string& output) {
  std::vector<YAML::Node> nodes;
  std::vector<std::string> sources;
  for (const std::string& f : files) {
    for (const YAML::Node& d :
         manifest_objects(load_yaml_documents(read_file_text(f, "Karpenter manifest"), f))) {
      nodes.push_back(d);
      sources.push_back(f);
    }
  }
  std::vector<KarpenterDocument> docs;
  docs.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) docs.push_back({&nodes[i], sources[i]});
  const KarpenterImport imported = import_karpenter(docs);
  const std::string yaml = pool_manifests_yaml(imported);
  // What we print, `fitscale run` and `fitscale validate --pools` must read: checked here, so a
  // bug in the conversion is an error now, not a Warning Event later.
  for (const YAML::Node& d : manifest_objects(load_yaml_documents(yaml, "the imported Pools")))
    read_pool_manifest(d, "the imported Pools");
  for (const auto& w : imported.warnings)
    std::fprintf(stderr, "fitscale: warning: %s\n", w.c_str());
  if (output.empty()) {
    std::fwrite(yaml.data(), 1, yaml.size(), stdout);
  } else {
    std::ofstream out(output, std::ios::binary | std::ios::trunc);
    out << yaml;
    out.close();
    if (!out) throw InputError("-o " + output + ": cannot write the file");
    std::fprintf(stderr, "%s: %zu Pool(s), %zu warning(s)\n", output.c_str(), imported.pools.size(),
                 imported.warnings.size());
  }
  return 0;
}

}  // namespace

Runner register_import(CLI::App& app) {
  auto* cmd = app.add_subcommand("import", "Turn another autoscaler's objects into fitscale's");
  cmd->require_subcommand(1);
  auto files = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  auto* k = cmd->add_subcommand(
      "karpenter",
      "Karpenter NodePool (karpenter.sh/v1) and EC2NodeClass (karpenter.k8s.aws/v1) YAML to "
      "fitscale Pool manifests; every field without an equivalent is a warning on stderr and a "
      "comment in the output (docs/migrating.md)");
  k->add_option("FILE", *files, "YAML files with NodePools and the EC2NodeClasses they use")
      ->required();
  k->add_option("-o,--output", *output, "write the Pools to this file (default: stdout)");
  return [files, output] { return import_karpenter_files(*files, *output); };
}

}  // namespace fitscale::cli
