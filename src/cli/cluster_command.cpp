#include <cstdio>

#include "cli/commands.h"

namespace fitscale::cli {

// Placeholder until the issue that owns `fitscale cluster` lands.
Runner register_cluster(CLI::App& app) {
  app.add_subcommand("cluster", "(not implemented yet)");
  return [] {
    std::fprintf(stderr, "fitscale cluster: not implemented yet\n");
    return 2;
  };
}

}  // namespace fitscale::cli
