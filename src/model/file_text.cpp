#include "model/file_text.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/error.h"

namespace fitscale {

std::string read_file_text(const std::string& path, std::string_view what) {
  const std::string named = what.empty() ? path : path + " (" + std::string(what) + ")";
  std::error_code ec;
  // A directory opens and then reads as nothing: the parser would report an empty file.
  if (std::filesystem::is_directory(path, ec)) throw InputError(named + ": is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int reason = errno;
    throw InputError(named + ": cannot read" +
                     (reason != 0 ? std::string(": ") + std::strerror(reason) : std::string()));
  }
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) throw InputError(named + ": cannot read");
  return out.str();
}

}  // namespace fitscale
