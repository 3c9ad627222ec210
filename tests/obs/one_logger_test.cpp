// One logger, injected (issue 13): leader election, informer and decode lines went to spdlog's
// global default logger, in text on stdout whatever --log-format said and past the redaction.
// Only src/obs/ may touch spdlog (its Logger writes through a private spdlog sink); everything
// else is handed an obs::Logger. This walks the tree so a new direct call fails here, by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fitscale::obs {
namespace {

namespace fs = std::filesystem;

TEST(OneLogger, NoSpdlogOutsideSrcObs) {
  const fs::path root = FITSCALE_SOURCE_DIR;
  // Spelled in two pieces so this file does not find itself.
  const std::string calls = std::string("spd") + "log::";
  const std::string include = std::string("<spd") + "log/";
  std::string offenders;
  std::size_t files = 0;
  for (const char* dir : {"src", "tests", "bench", "fuzz"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      if (!entry.is_regular_file()) continue;
      const auto ext = entry.path().extension();
      if (ext != ".cpp" && ext != ".h" && ext != ".hpp" && ext != ".cc") continue;
      const fs::path rel = fs::relative(entry.path(), root);
      if (rel.string().rfind("src/obs/", 0) == 0) continue;
      ++files;
      std::ifstream in(entry.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        if (line.find(calls) != std::string::npos || line.find(include) != std::string::npos)
          offenders += rel.string() + ":" + std::to_string(n) + ": " + line + "\n";
      }
    }
  }
  EXPECT_GT(files, 100u) << "walked " << root;
  EXPECT_EQ(offenders, "") << "log through the obs::Logger passed to the constructor instead";
}

}  // namespace
}  // namespace fitscale::obs
