#include <cstdio>

#include "cli/commands.h"

namespace fitscale::cli {

// Placeholder until the issue that owns `fitscale simulate` lands.
Runner register_simulate(CLI::App& app) {
  app.add_subcommand("simulate", "(not implemented yet)");
  return [] {
    std::fprintf(stderr, "fitscale simulate: not implemented yet\n");
    return 2;
  };
}

}  // namespace fitscale::cli
