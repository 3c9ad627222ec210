#pragma once
// `fitscale import karpenter` (docs/migrating.md): Karpenter NodePools (karpenter.sh/v1) and
// EC2NodeClasses (karpenter.k8s.aws/v1) into fitscale Pool objects, as a pure function of the
// parsed documents. Every field with no fitscale equivalent is named in a warning (and as a
// comment above the Pool it concerns); a field that cannot be read is an InputError naming the
// file, the line and the field.
#include <string>
#include <vector>

#include "model/pool.h"

namespace YAML {
class Node;
}

namespace fitscale {

struct KarpenterDocument {
  const YAML::Node* node = nullptr;  // one document of a file
  std::string source;                // the file, for errors
};

struct ImportedPool {
  Pool pool;
  std::vector<std::string> notes;  // "spec.disruption.budgets: no equivalent (...)"
};

struct KarpenterImport {
  std::vector<ImportedPool> pools;    // one per NodePool, in input order
  std::vector<std::string> warnings;  // every note, "file:line: NodePool NAME: field: ..."
};

// Documents of other kinds are an error; EC2NodeClasses no NodePool uses get a warning.
KarpenterImport import_karpenter(const std::vector<KarpenterDocument>& docs);

// The Pool manifests (one YAML document each, apiVersion fitscale.io/v1alpha1), each preceded
// by its notes as comments: what `fitscale import karpenter` prints.
std::string pool_manifests_yaml(const KarpenterImport& imported);

}  // namespace fitscale
