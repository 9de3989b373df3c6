// Writing a generated text file (see text_file.h).
#include "support/text_file.h"

#include <fstream>

#include "support/error.h"

namespace st {

void writeTextFile(const std::filesystem::path &path, const std::string &text) {
  std::ofstream out(path);
  out << text;
  if (!out)
    throw Error(path.string(), "file", "a writable file");
}

} // namespace st
