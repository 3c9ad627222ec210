#pragma once
// The one way fitscale reads YAML text from a user: config files, Pool, Budget and Karpenter
// manifests, kubeconfigs and cluster dumps all go through here, so a malformed stream that would
// hang yaml-cpp is refused in one place, with the file, line and column.
#include <yaml-cpp/yaml.h>

#include <string_view>
#include <vector>

namespace fitscale {

// Every document of `text`; InputError "SOURCE:LINE:COLUMN: invalid YAML: ..." when it is not
// YAML. `source` names the input (a path, or what the text is).
std::vector<YAML::Node> load_yaml_documents(std::string_view text, std::string_view source);

// The one document of a file that holds one (a config file, a kubeconfig): an empty file is a
// null node; a second non-empty document is an InputError naming its line, not ignored.
YAML::Node load_yaml_document(std::string_view text, std::string_view source);

// The objects of a manifest stream: every non-empty document, with a `kind: List`'s items in its
// place (what `kubectl get -o yaml` writes), in order.
std::vector<YAML::Node> manifest_objects(const std::vector<YAML::Node>& documents);

}  // namespace fitscale
