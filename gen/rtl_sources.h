// RtlSources: which template files a generated design needs. Scans rtl_templates/ for the module
// each .sv file declares and the st_* modules it instantiates, and returns the closure of a set
// of modules in dependency order (a module's submodules before it), so out/rtl holds exactly the
// files the top uses and the file list reads them in an order every tool accepts.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace st::gen {

struct RtlModuleInfo {
  std::string path;                   ///< absolute path of the .sv file
  std::set<std::string> instantiates; ///< st_* modules it instantiates
};

/// Module name -> file, for every rtl_templates/*/*.sv under `templateDir`.
std::map<std::string, RtlModuleInfo> scanRtlTemplates(const std::string &templateDir);

/// The st_* modules a piece of SystemVerilog text instantiates.
std::set<std::string> instantiatedModules(const std::string &svText);

/// The template files needed by `roots`, submodules first. Throws st::Error naming a module
/// that no template declares.
std::vector<std::string> templateClosure(const std::map<std::string, RtlModuleInfo> &library,
                                         const std::set<std::string> &roots);

} // namespace st::gen
