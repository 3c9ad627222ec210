#include <cstdio>

#include "cli/commands.h"

namespace fitscale::cli {

// Placeholder until the issue that owns `fitscale validate` lands.
Runner register_validate(CLI::App& app) {
  app.add_subcommand("validate", "(not implemented yet)");
  return [] {
    std::fprintf(stderr, "fitscale validate: not implemented yet\n");
    return 2;
  };
}

}  // namespace fitscale::cli
