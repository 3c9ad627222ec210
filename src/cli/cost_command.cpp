#include <cstdio>

#include "cli/commands.h"

namespace fitscale::cli {

// Placeholder until the issue that owns `fitscale cost` lands.
Runner register_cost(CLI::App& app) {
  app.add_subcommand("cost", "(not implemented yet)");
  return [] {
    std::fprintf(stderr, "fitscale cost: not implemented yet\n");
    return 2;
  };
}

}  // namespace fitscale::cli
