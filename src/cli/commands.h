#pragma once
// Each subcommand registers its flags on the app and returns the exit code when run.
// One file per subcommand: cli/<name>_command.cpp.
#include <CLI/CLI.hpp>
#include <functional>

namespace fitscale::cli {

using Runner = std::function<int()>;

Runner register_plan(CLI::App& app);
Runner register_simulate(CLI::App& app);
Runner register_validate(CLI::App& app);
Runner register_cost(CLI::App& app);
Runner register_cluster(CLI::App& app);
Runner register_run(CLI::App& app);
Runner register_import(CLI::App& app);

}  // namespace fitscale::cli
