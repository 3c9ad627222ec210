#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include "cli/commands.h"
#include "model/error.h"

int main(int argc, char** argv) {
  CLI::App app{"fitscale: a batch-first node autoscaler for Kubernetes"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "fitscale 0.1.0");

  std::map<std::string, fitscale::cli::Runner> runners;
  runners["plan"] = fitscale::cli::register_plan(app);
  runners["simulate"] = fitscale::cli::register_simulate(app);
  runners["validate"] = fitscale::cli::register_validate(app);
  runners["cost"] = fitscale::cli::register_cost(app);
  runners["cluster"] = fitscale::cli::register_cluster(app);
  runners["run"] = fitscale::cli::register_run(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (auto* sub : app.get_subcommands()) {
      return runners.at(sub->get_name())();
    }
  } catch (const fitscale::InputError& e) {
    std::fprintf(stderr, "fitscale: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fitscale: fatal: %s\n", e.what());
    return 1;
  }
  return 0;
}
