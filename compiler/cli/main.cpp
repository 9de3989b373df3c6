// streamtensor: the compiler's command-line entry point. Builds the CLI11 command tree from the
// command registry, adds `help [command]` (Yosys-style: a list of commands, or one command's
// text with an example), parses the arguments and runs the chosen command.
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "cli/command_registry.h"

namespace {

std::vector<st::cli::CliCommand> buildRegistry() {
  std::vector<st::cli::CliCommand> registry;
  st::cli::addItensorCommands(registry);
  st::cli::addCompileCommands(registry);
  st::cli::addSimCommands(registry);
  st::cli::addEvalCommands(registry);
  st::cli::addHbmImageCommands(registry);
  return registry;
}

std::vector<std::string> splitWords(const std::string &s) {
  std::istringstream in(s);
  std::vector<std::string> words;
  for (std::string w; in >> w;)
    words.push_back(w);
  return words;
}

void printCommandList(const std::vector<st::cli::CliCommand> &registry) {
  std::cout << "streamtensor: turns decoder-only LLMs into stream-scheduled dataflow "
               "accelerators in SystemVerilog.\n\nCommands:\n";
  size_t width = 4;
  for (const auto &c : registry)
    width = std::max(width, c.name.size());
  std::cout << "  help" << std::string(width - 4 + 3, ' ') << "list commands, or explain one\n";
  for (const auto &c : registry)
    std::cout << "  " << c.name << std::string(width - c.name.size() + 3, ' ') << c.summary << "\n";
  std::cout << "\nType 'streamtensor help <command>' for what a command does, with an example.\n";
}

/// `streamtensor help [words...]`: exact command, or every command whose name starts with the
/// words (e.g. `help itensor`).
int runHelp(const std::vector<st::cli::CliCommand> &registry,
            const std::vector<std::string> &args) {
  if (args.empty()) {
    printCommandList(registry);
    return 0;
  }
  std::string want;
  for (const auto &a : args)
    want += (want.empty() ? "" : " ") + a;
  for (const auto &c : registry)
    if (c.name == want) {
      std::cout << "streamtensor " << c.name << " - " << c.summary << "\n\n" << c.help;
      return 0;
    }
  bool any = false;
  for (const auto &c : registry)
    if (c.name.rfind(want + " ", 0) == 0) {
      std::cout << (any ? "" : "Commands under '" + want + "':\n") << "  " << c.name << "  "
                << c.summary << "\n";
      any = true;
    }
  if (any)
    return 0;
  std::cerr << "streamtensor help: error: command: expected one of the commands 'streamtensor "
               "help' lists, got '"
            << want << "'\n";
  return st::cli::kExitUsage;
}

} // namespace

int main(int argc, char **argv) {
  const std::vector<st::cli::CliCommand> registry = buildRegistry();
  CLI::App app{"streamtensor: LLM to stream-scheduled dataflow accelerator compiler"};
  app.require_subcommand(1);
  app.set_help_flag("-h,--help", "Print this help and exit");

  std::vector<std::string> helpArgs;
  CLI::App *help = app.add_subcommand("help", "List commands, or explain one");
  help->add_option("command", helpArgs, "The command to explain, e.g. itensor convert");

  // Build the subcommand tree; a leaf's runner is chosen after parsing.
  std::map<CLI::App *, st::cli::CommandRunner> runners;
  std::map<std::string, CLI::App *> groups;
  for (const auto &c : registry) {
    std::vector<std::string> words = splitWords(c.name);
    CLI::App *parent = &app;
    std::string path;
    for (size_t i = 0; i + 1 < words.size(); ++i) {
      path += (path.empty() ? "" : " ") + words[i];
      auto it = groups.find(path);
      if (it == groups.end()) {
        CLI::App *g = parent->add_subcommand(words[i], "'" + path + "' commands");
        g->require_subcommand(1);
        it = groups.emplace(path, g).first;
      }
      parent = it->second;
    }
    CLI::App *leaf = parent->add_subcommand(words.back(), c.summary);
    leaf->footer("\n" + c.help);
    runners[leaf] = c.setup(*leaf);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::cerr << "streamtensor: error: " << e.what()
              << " (see 'streamtensor help' for the commands and their options)\n";
    return st::cli::kExitUsage;
  }

  if (help->parsed())
    return runHelp(registry, helpArgs);
  for (const auto &[sub, run] : runners)
    if (sub->parsed())
      return run();
  printCommandList(registry);
  return st::cli::kExitUsage;
}
