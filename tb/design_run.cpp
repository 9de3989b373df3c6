// DesignRun: the design manifest and binary data files of a generated testbench, and the
// FIFO-depth search of a search build (searchFifoDepths).
#include "design_run.h"

#include <algorithm>
#include <stdexcept>

namespace st::tb {

std::vector<uint8_t> readBinaryFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw TestFailure("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeBinaryFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out)
    throw TestFailure("cannot write " + path);
}

DesignManifest loadDesignManifest(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read the design manifest " + path);
  nlohmann::json j = nlohmann::json::parse(in);
  std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  DesignManifest m;
  m.top = j.at("top").get<std::string>();
  m.kernelClockMhz = j.at("kernel_clock_mhz").get<double>();
  for (const auto &b : j.at("buffers"))
    m.buffers.push_back(
        {b.at("name").get<std::string>(), b.at("role").get<std::string>() == "input",
         b.at("address").get<uint64_t>(), b.at("bytes").get<uint64_t>(),
         b.at("arg_offset").get<unsigned>(), dir + "/" + b.at("file").get<std::string>(),
         b.at("role").get<std::string>()});
  return m;
}

void applyArgRegisters(DesignManifest &manifest, const std::vector<ArgRegister> &registers) {
  if (registers.size() != manifest.buffers.size())
    throw TestFailure("the kernel header lists " + std::to_string(registers.size()) +
                      " arguments, the manifest " + std::to_string(manifest.buffers.size()) +
                      " buffers");
  for (DesignBuffer &b : manifest.buffers) {
    bool found = false;
    for (const ArgRegister &r : registers)
      if (r.name == b.name) {
        b.argOffset = r.offset;
        found = true;
      }
    if (!found)
      throw TestFailure("buffer '" + b.name +
                        "' of the manifest has no argument in the kernel "
                        "header");
  }
}

std::vector<SearchFifo> loadSearchFifos(const std::string &path) {
  std::ifstream in(path);
  nlohmann::json j = nlohmann::json::parse(in);
  if (!j.contains("fifos"))
    throw std::runtime_error(path + ": fifos: expected the list a search build's manifest has");
  std::vector<SearchFifo> fifos;
  for (const auto &f : j.at("fifos"))
    fifos.push_back({f.at("name").get<std::string>(), f.at("sized_depth").get<uint64_t>(),
                     f.at("physical_depth").get<uint64_t>(), f.at("token_bits").get<uint64_t>()});
  return fifos;
}

nlohmann::json searchFifoDepths(
    const std::vector<SearchFifo> &fifos, double tolerance,
    const std::function<nlohmann::json(const std::vector<uint64_t> &, uint64_t)> &run) {
  const uint64_t kLongTimeout = 2000000;
  std::vector<uint64_t> sized, deep;
  for (const SearchFifo &f : fifos) {
    sized.push_back(f.sizedDepth);
    deep.push_back(f.physicalDepth);
  }
  const nlohmann::json deepRun = run(deep, kLongTimeout);
  const nlohmann::json sizedRun = run(sized, kLongTimeout);
  uint64_t trials = 2;
  const bool deepOk = deepRun.value("bit_exact", false);
  const uint64_t deepCycles = deepRun.value("cycles", uint64_t{0});
  // Within tolerance of deep: cycles <= deep * (1 + tolerance), in integers.
  const uint64_t budget =
      deepCycles + static_cast<uint64_t>(static_cast<double>(deepCycles) * tolerance);
  auto fits = [&](const nlohmann::json &r) {
    return r.value("bit_exact", false) && r.value("cycles", ~uint64_t{0}) <= budget;
  };
  const bool sizedOk = deepOk && fits(sizedRun);
  nlohmann::json out = nlohmann::json::array();
  uint64_t sizedBits = 0, searchedBits = 0;
  for (size_t e = 0; e < fifos.size(); ++e) {
    const SearchFifo &f = fifos[e];
    int64_t found = -1;
    if (sizedOk) {
      // The sized run fits, so the answer is in [2, sized depth]: bisect.
      uint64_t lo = std::min<uint64_t>(2, f.sizedDepth), hi = f.sizedDepth;
      while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        std::vector<uint64_t> limits = sized;
        limits[e] = mid;
        ++trials;
        if (fits(run(limits, budget)))
          hi = mid;
        else
          lo = mid + 1;
      }
      found = static_cast<int64_t>(lo);
    }
    sizedBits += f.sizedDepth * f.tokenBits;
    searchedBits += static_cast<uint64_t>(std::max<int64_t>(found, 0)) * f.tokenBits;
    out.push_back({{"name", f.name},
                   {"sized_depth", f.sizedDepth},
                   {"searched_min_depth", found},
                   {"token_bits", f.tokenBits}});
  }
  return {{"cycles_sized", sizedRun.value("cycles", uint64_t{0})},
          {"sized_bit_exact", sizedRun.value("bit_exact", false)},
          {"sized_deadlock", sizedRun.value("deadlock", false)},
          {"cycles_deep", deepCycles},
          {"deep_bit_exact", deepOk},
          {"tolerance", tolerance},
          {"budget_cycles", budget},
          {"sized_ok", sizedOk},
          {"trials", trials},
          {"fifos", out},
          {"sized_fifo_bits", sizedBits},
          {"searched_fifo_bits", searchedBits}};
}

} // namespace st::tb
