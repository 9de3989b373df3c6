// Subprocess helpers of the CLI: running a shell command with its output captured, quoting for
// the shell, and building a generated testbench directory (CMake + Verilator, once; later runs
// are incremental and ccache helps).
#pragma once

#include <string>

namespace st::cli {

/// Runs `command` through the shell, appending its standard output to `out`; returns its exit
/// status (-1 when it could not run or did not exit normally).
int runCapture(const std::string &command, std::string &out);

/// `s` in single quotes for the shell.
std::string shellQuote(const std::string &s);

/// How the testbench's model is compiled (the generated CMakeLists' ST_TB_OPT, ST_TB_THREADS).
struct ModelBuild {
  unsigned opt = 1;     ///< optimization of the model's and the testbench's C++ (1 .. 3)
  unsigned threads = 1; ///< Verilator model threads (1: single-threaded)
};

/// Configures (Ninja, once) and builds the testbench in `tbDir` into `tbDir`/build, or with
/// `trace` the FST-traced model (-DST_TB_TRACE=ON) into `tbDir`/build-trace, so the default
/// build stays without tracing; the model as `model` says (a change rebuilds it). Returns false
/// with the tools' output in `log` when either step fails.
bool buildTestbench(const std::string &tbDir, std::string &log, bool trace = false,
                    const ModelBuild &model = {});

/// The build directory buildTestbench uses: `tbDir`/build or `tbDir`/build-trace.
std::string testbenchBuildDir(const std::string &tbDir, bool trace);

} // namespace st::cli
