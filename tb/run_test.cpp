// runTest: the common main() body of every Verilator test binary.
#include <cstdio>
#include <exception>

#include "harness.h"

namespace st::tb {

int runTest(int argc, char **argv, const std::function<void(const TestOptions &)> &body) {
  TestOptions options = parseTestOptions(argc, argv);
  std::printf("%s: config '%s' seed %llu (replay with --seed %llu)\n", argv[0],
              options.config.c_str(), static_cast<unsigned long long>(options.seed),
              static_cast<unsigned long long>(options.seed));
  try {
    body(options);
  } catch (const TestFailure &e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  } catch (const std::exception &e) {
    std::printf("FAIL (exception): %s\n", e.what());
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}

} // namespace st::tb
