// fitscale's entry point: registers the subcommands and turns every way a command can fail into
// one line on stderr and an exit code (docs/operating.md, "Exit codes"):
//   0  done;  1  an unexpected failure ("fitscale: fatal: ...");
//   2  a usage or input error ("fitscale: error: ..."): a bad flag, an unknown command, a bad
//      config, catalog, trace or kubeconfig. CLI11's own codes (105 ValidationError,
//      106 RequiredError, 109 ExtrasError, ...) never reach the shell.
#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/did_you_mean.h"
#include "model/bounded_text.h"
#include "model/error.h"
#include "obs/redact.h"

namespace {

int usage_error(const std::string& message) {
  // Errors quote what the user gave (a URL with a password, a token on the command line).
  std::fprintf(stderr, "fitscale: error: %s\n", fitscale::obs::redact_text(message).c_str());
  return 2;
}

}  // namespace

// Every error a command raises is caught below and printed; anything else escaping is a bug that
// should abort with its message rather than be hidden.
int main(int argc, char** argv) {  // NOLINT(bugprone-exception-escape)
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
  runners["import"] = fitscale::cli::register_import(app);

  // A first word that is no command: CLI11 would say "The following arguments were not
  // expected"; say which command was probably meant instead.
  if (argc > 1 && argv[1][0] != '-' && runners.count(argv[1]) == 0) {
    std::vector<std::string> names;
    names.reserve(runners.size());
    for (const auto& [name, runner] : runners) names.push_back(name);
    std::string message = "unknown command \"" + fitscale::bounded_text(argv[1]) + "\"";
    if (auto guess = fitscale::cli::closest_command(argv[1], names)) {
      message += "; did you mean \"" + *guess + "\"?";
    } else {
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      message += " (commands: " + all + "; see fitscale --help)";
    }
    return usage_error(message);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0: CLI11 prints them on stdout.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    return usage_error(e.what());
  }
  try {
    for (auto* sub : app.get_subcommands()) {
      return runners.at(sub->get_name())();
    }
  } catch (const fitscale::InputError& e) {
    return usage_error(e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fitscale: fatal: %s\n", fitscale::obs::redact_text(e.what()).c_str());
    return 1;
  }
  return 0;
}
