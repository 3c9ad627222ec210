// Pool, Budget and Karpenter manifests are users' own files (`fitscale validate --pools`,
// `--budgets`, `fitscale import karpenter`): whatever is in them, the readers return a value or
// throw InputError naming the file, never anything else, and never hang. The same contract as
// fuzz/manifests_fuzz.cpp, on a fixed set of mutations of its seeds.
#include <gtest/gtest.h>

#include "../support/bad_input.h"
#include "../support/manifest_use.h"
#include "../support/seed_files.h"
#include "model/error.h"
#include "model/yaml_documents.h"

namespace fitscale {
namespace {

void manifests(const std::string& text) { bad_input::read_and_use_manifests(text); }

std::string error_of(std::string_view text) {
  try {
    bad_input::read_and_use_manifests(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ManifestMutation, SeedMutationsGiveValuesOrInputErrorsNamingTheFile) {
  for (const auto& seed : bad_input::seed_files("manifests")) {
    SCOPED_TRACE(seed.name);
    ASSERT_NO_THROW(manifests(seed.text));
    EXPECT_EQ(bad_input::violations("manifests.yaml", bad_input::bad_inputs(seed.text, 800, 7),
                                    manifests),
              "");
  }
}

// Found by hand after the cluster dumps' fix: `fitscale validate --pools`, `--budgets` and
// `fitscale import karpenter` read their files with yaml-cpp's LoadAll directly, which never
// returns on a stray "," after a document (jbeder/yaml-cpp#1040): the command hung until killed.
TEST(ManifestMutation, AStrayCommaAfterADocumentIsRefusedWithItsLineNotAHang) {
  EXPECT_EQ(error_of("{},\n"),
            "manifests.yaml:1:3: invalid YAML: unexpected \",\" where a document should start");
  EXPECT_EQ(error_of("apiVersion: fitscale.io/v1alpha1\nkind: Pool\nmetadata: {name: a}\n---\n{},"),
            "manifests.yaml:5:3: invalid YAML: unexpected \",\" where a document should start");
}

TEST(YamlDocuments, AFileOfOneDocumentRefusesASecondInsteadOfIgnoringIt) {
  EXPECT_TRUE(load_yaml_document("", "config.yaml").IsNull());
  EXPECT_EQ(load_yaml_document("---\nzones: [a]\n---\n", "config.yaml")["zones"][0].Scalar(), "a");
  try {
    load_yaml_document("zones: [a]\n---\nzones: [b]\n", "config.yaml");
    FAIL() << "a second document was ignored";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("config.yaml:3: a second YAML document", 0), 0u)
        << e.what();
  }
  // yaml-cpp's Load reads only the first document, so the stray comma passed as `{}` before.
  EXPECT_THROW(load_yaml_document("{},", "config.yaml"), InputError);
}

}  // namespace fitscale
