#include <cstdio>

#include "cli/commands.h"

namespace fitscale::cli {

// Placeholder until the issue that owns `fitscale run` lands.
Runner register_run(CLI::App& app) {
  app.add_subcommand("run", "(not implemented yet)");
  return [] {
    std::fprintf(stderr, "fitscale run: not implemented yet\n");
    return 2;
  };
}

}  // namespace fitscale::cli
