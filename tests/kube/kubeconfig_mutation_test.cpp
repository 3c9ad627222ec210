// Kubeconfig files are users' own files: whatever is in them, parse_kubeconfig returns a config
// or throws InputError naming the file (and the key), never anything else. The same contract as
// fuzz/kubeconfig_fuzz.cpp, on a fixed set of mutations of the seeds in fuzz/seeds/kubeconfig/.
#include <gtest/gtest.h>

#include "../support/bad_input.h"
#include "../support/seed_files.h"
#include "kube/kubeconfig.h"

namespace fitscale {
namespace {

void parse(const std::string& text) {
  parse_kubeconfig(text, "kc.yaml", "/nonexistent-fitscale-test");
}

TEST(KubeconfigMutation, SeedMutationsGiveConfigsOrInputErrorsNamingTheFile) {
  const auto seeds = bad_input::seed_files("kubeconfig");
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    SCOPED_TRACE(seeds[i].name);
    EXPECT_EQ(
        bad_input::violations("kc.yaml", bad_input::bad_inputs(seeds[i].text, 1500, 11 + i), parse),
        "");
  }
  EXPECT_GE(seeds.size(), 2u);
}

}  // namespace
}  // namespace fitscale
