// Kubeconfig files are users' own files: whatever is in them, parse_kubeconfig returns a config
// or throws InputError naming the file (and the key), never anything else. The same contract as
// fuzz/kubeconfig_fuzz.cpp, on a fixed set of mutations of the seeds in fuzz/seeds/kubeconfig/.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../support/bad_input.h"
#include "kube/kubeconfig.h"

namespace fitscale {
namespace {

void parse(const std::string& text) {
  parse_kubeconfig(text, "kc.yaml", "/nonexistent-fitscale-test");
}

TEST(KubeconfigMutation, SeedMutationsGiveConfigsOrInputErrorsNamingTheFile) {
  const std::filesystem::path dir =
      std::filesystem::path(FITSCALE_SOURCE_DIR) / "fuzz/seeds/kubeconfig";
  std::size_t seeds = 0;
  std::vector<std::filesystem::path> files;  // sorted: the same mutations on every machine
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    ++seeds;
    SCOPED_TRACE(file.filename().string());
    EXPECT_EQ(
        bad_input::violations("kc.yaml", bad_input::bad_inputs(ss.str(), 1500, 10 + seeds), parse),
        "");
  }
  EXPECT_GE(seeds, 2u);
}

}  // namespace
}  // namespace fitscale
