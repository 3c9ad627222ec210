#include <cstdio>

#include "cli/commands.h"

namespace fitscale::cli {

// Placeholder until the issue that owns `fitscale plan` lands.
Runner register_plan(CLI::App& app) {
  app.add_subcommand("plan", "(not implemented yet)");
  return [] {
    std::fprintf(stderr, "fitscale plan: not implemented yet\n");
    return 2;
  };
}

}  // namespace fitscale::cli
