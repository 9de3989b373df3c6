// The CLI's command registry: every command of `streamtensor` is one CliCommand with a name
// (words, e.g. "itensor convert"), a one-line summary for `streamtensor help`, a help text with
// an example for `streamtensor help <command>`, and a setup function that adds the command's
// options to its CLI11 subcommand and returns the function that runs it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace st::cli {

/// Runs a parsed command; returns the process exit code.
using CommandRunner = std::function<int()>;

struct CliCommand {
  std::string name;
  std::string summary;
  std::string help;
  std::function<CommandRunner(CLI::App &)> setup;
};

/// Exit code of a command given input it cannot accept (bad type text, mismatched tensors,
/// unknown options).
constexpr int kExitUsage = 2;

/// Commands of compiler/cli/itensor_command.cpp.
void addItensorCommands(std::vector<CliCommand> &registry);
/// Commands of compiler/cli/compile_command.cpp.
void addCompileCommands(std::vector<CliCommand> &registry);
/// Commands of compiler/cli/sim_command.cpp.
void addSimCommands(std::vector<CliCommand> &registry);
/// Commands of compiler/cli/eval_command.cpp.
void addEvalCommands(std::vector<CliCommand> &registry);
/// Commands of compiler/cli/hbm_image_command.cpp.
void addHbmImageCommands(std::vector<CliCommand> &registry);

} // namespace st::cli
