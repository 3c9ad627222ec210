#pragma once
// What fitscale does with a manifest file as soon as it is read, for the bad-input contract
// (bad_input.h): `fitscale validate --pools/--budgets` and `fitscale import karpenter` split it
// into objects (a List's items too), read each Pool and Budget, merge the Budgets over the safe
// defaults, and turn Karpenter objects into Pools that must read back. Shared by
// fuzz/manifests_fuzz.cpp and tests/model/manifest_mutation_test.cpp.
#include <string_view>
#include <vector>

#include "model/budget_manifest.h"
#include "model/budget_object.h"
#include "model/config.h"
#include "model/karpenter_import.h"
#include "model/pool_manifest.h"
#include "model/yaml_documents.h"

namespace fitscale::bad_input {

inline void read_and_use_manifests(std::string_view text) {
  const std::string source = "manifests.yaml";
  const std::vector<YAML::Node> objects = manifest_objects(load_yaml_documents(text, source));
  std::vector<BudgetObject> budgets;
  std::vector<KarpenterDocument> karpenter;
  for (const YAML::Node& o : objects) {
    if (is_pool_manifest(o)) {
      read_pool_manifest(o, source);
    } else if (is_budget_manifest(o)) {
      budgets.push_back(read_budget_manifest(o, source, "kube-system"));
    } else {
      karpenter.push_back({&o, source});
    }
  }
  merge_budget_objects(budgets_or_defaults(Config{}), budgets);
  if (karpenter.empty()) return;
  // What the import prints must read back as Pools: an error here names "imported", not the
  // input, so the contract counts it as a finding.
  const std::string printed = pool_manifests_yaml(import_karpenter(karpenter));
  for (const YAML::Node& d : manifest_objects(load_yaml_documents(printed, "imported")))
    read_pool_manifest(d, "imported");
}

}  // namespace fitscale::bad_input
