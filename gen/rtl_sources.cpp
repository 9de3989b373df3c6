// RtlSources: template scanning and dependency closure.
#include "gen/rtl_sources.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "support/error.h"

namespace st::gen {

std::set<std::string> instantiatedModules(const std::string &svText) {
  // `st_name #(` or `st_name u_inst (` at the start of a statement.
  static const std::regex inst(
      R"((^|[;\n])\s*(st_[A-Za-z0-9_]+)\s*(#\s*\(|[A-Za-z_][A-Za-z0-9_]*\s*\())");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(svText.begin(), svText.end(), inst);
       it != std::sregex_iterator(); ++it)
    out.insert((*it)[2].str());
  return out;
}

std::map<std::string, RtlModuleInfo> scanRtlTemplates(const std::string &templateDir) {
  namespace fs = std::filesystem;
  static const std::regex decl(R"(^\s*module\s+([A-Za-z0-9_]+))");
  std::map<std::string, RtlModuleInfo> lib;
  if (!fs::is_directory(templateDir))
    throw Error(templateDir, "directory", "the rtl_templates directory of streamtensor");
  for (const auto &entry : fs::recursive_directory_iterator(templateDir)) {
    if (entry.path().extension() != ".sv")
      continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    std::smatch m;
    std::istringstream lines(s);
    for (std::string line; std::getline(lines, line);)
      if (std::regex_search(line, m, decl)) {
        RtlModuleInfo info{fs::absolute(entry.path()).string(), instantiatedModules(s)};
        info.instantiates.erase(m[1].str());
        lib[m[1].str()] = info;
        break;
      }
  }
  return lib;
}

std::vector<std::string> templateClosure(const std::map<std::string, RtlModuleInfo> &library,
                                         const std::set<std::string> &roots) {
  std::vector<std::string> order;
  std::set<std::string> done;
  std::function<void(const std::string &)> visit = [&](const std::string &m) {
    if (done.count(m))
      return;
    auto it = library.find(m);
    if (it == library.end())
      throw Error("rtl templates", "module '" + m + "'",
                  "a template declaring it in rtl_templates/");
    done.insert(m);
    for (const auto &sub : it->second.instantiates)
      visit(sub);
    order.push_back(it->second.path);
  };
  for (const auto &r : roots)
    visit(r);
  return order;
}

} // namespace st::gen
