#pragma once
// The fuzzers' seed inputs (fuzz/seeds/NAME/), for the mutation tests that replay a fixed set of
// mutations of them in the normal suite. Sorted by file name: the same mutations on every machine.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fitscale::bad_input {

struct SeedFile {
  std::string name;  // the file name, for SCOPED_TRACE
  std::string text;
};

inline std::vector<SeedFile> seed_files(const std::string& corpus) {
  const std::filesystem::path dir =
      std::filesystem::path(FITSCALE_SOURCE_DIR) / "fuzz/seeds" / corpus;
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  std::vector<SeedFile> seeds;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    seeds.push_back({path.filename().string(), text.str()});
  }
  return seeds;
}

}  // namespace fitscale::bad_input
