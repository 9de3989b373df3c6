// LlmRun: the manifest and the options of the generated LLM testbench (see llm_run.h).
#include "llm_run.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace st::tb {

LlmRunManifest loadLlmRunManifest(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw TestFailure(path + ": expected the testbench manifest written by streamtensor compile");
  LlmRunManifest m;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    m.top = j.at("top").get<std::string>();
    m.kernelClockMhz = j.at("kernel_clock_mhz").get<double>();
    m.maxContext = j.at("max_context").get<int64_t>();
    m.promptAddress = j.at("prompt_address").get<uint64_t>();
    m.stepPort = j.at("step_port").get<int>();
    m.stepWords = j.value("step_words", int64_t{0});
    m.tokenPort = j.at("token_port").get<int>();
    for (const auto &f : j.at("files"))
      m.files.push_back(
          {(dir / f.at("path").get<std::string>()).string(), f.at("address").get<uint64_t>()});
    for (const auto &a : j.at("args"))
      m.args.push_back({a.at("name").get<std::string>(), 0u, a.at("pointer").get<bool>(),
                        a.value("address", uint64_t{0})});
    for (const auto &r : j.at("dump"))
      m.dump.push_back({r.at("name").get<std::string>(), r.at("address").get<uint64_t>(),
                        r.at("bytes").get<uint64_t>()});
    m.streams = loadProbedStreams(j, path);
    if (j.contains("streams"))
      for (const auto &s : j.at("streams"))
        m.runsPerStep.push_back(s.at("runs_per_step").get<uint64_t>());
  } catch (const nlohmann::json::exception &e) {
    throw TestFailure(path + ": malformed testbench manifest (" + e.what() + ")");
  }
  return m;
}

void applyLlmArgRegisters(LlmRunManifest &manifest, const std::vector<ArgRegister> &registers) {
  if (registers.size() != manifest.args.size())
    throw TestFailure("the kernel header has " + std::to_string(registers.size()) +
                      " arguments, the testbench manifest " + std::to_string(manifest.args.size()));
  for (size_t i = 0; i < registers.size(); ++i) {
    if (registers[i].name != manifest.args[i].name)
      throw TestFailure("argument " + std::to_string(i) + ": '" + registers[i].name +
                        "' in the kernel header, '" + manifest.args[i].name +
                        "' in the testbench manifest");
    manifest.args[i].offset = registers[i].offset;
  }
}

std::vector<PreloadRegion> readPreloadFile(const std::string &path) {
  const std::vector<uint8_t> data = readBinaryFile(path);
  std::vector<PreloadRegion> regions;
  auto u64At = [&](size_t at) {
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b)
      v |= uint64_t{data[at + static_cast<size_t>(b)]} << (8 * b);
    return v;
  };
  for (size_t at = 0; at < data.size();) {
    if (data.size() - at < 16)
      throw TestFailure(path + ": a truncated region header at byte " + std::to_string(at));
    PreloadRegion r;
    r.address = u64At(at);
    const uint64_t bytes = u64At(at + 8);
    at += 16;
    if (bytes > data.size() - at)
      throw TestFailure(path + ": region at byte " + std::to_string(at - 16) + " holds " +
                        std::to_string(bytes) + " bytes, the file " +
                        std::to_string(data.size() - at) + " more");
    r.bytes.assign(data.begin() + static_cast<std::ptrdiff_t>(at),
                   data.begin() + static_cast<std::ptrdiff_t>(at + bytes));
    at += bytes;
    regions.push_back(std::move(r));
  }
  return regions;
}

std::vector<char *> parseLlmRunOptions(int argc, char **argv, LlmRunOptions &run) {
  std::vector<char *> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    try {
      if (a == "--manifest") {
        run.manifest = value();
      } else if (a == "--output-dir") {
        run.outputDir = value();
      } else if (a == "--prompt-ids") {
        std::istringstream ids(value());
        for (std::string id; std::getline(ids, id, ',');)
          run.prompt.push_back(static_cast<uint32_t>(std::stoul(id)));
      } else if (a == "--new-tokens") {
        run.newTokens = std::stoll(value());
      } else if (a == "--first-step") {
        run.firstStep = std::stoll(value());
      } else if (a == "--preload") {
        run.preload = value();
      } else if (a == "--latency") {
        run.hbm.readLatency = static_cast<unsigned>(std::stoul(value()));
      } else if (a == "--jitter") {
        run.hbm.latencyJitter = static_cast<unsigned>(std::stoul(value()));
      } else if (a == "--ready-probability") {
        run.hbm.readyProbability = std::stod(value());
      } else if (a == "--timeout") {
        run.timeoutCycles = std::stoull(value());
      } else {
        rest.push_back(argv[i]);
      }
    } catch (const std::exception &) {
      std::cerr << a << ": expected a number (or comma-separated numbers)\n";
      std::exit(2);
    }
  }
  return rest;
}

} // namespace st::tb
