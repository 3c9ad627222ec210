#include "model/file_text.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "model/error.h"

namespace fitscale {

std::string read_file_text(const std::string& path, std::string_view what, std::size_t max_bytes) {
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
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    const auto n = static_cast<std::size_t>(in.gcount());
    if (text.size() + n > max_bytes) {
      throw InputError(named + ": longer than " + std::to_string(max_bytes) +
                       " bytes; is it the right file?");
    }
    text.append(chunk, n);
  }
  if (in.bad()) throw InputError(named + ": cannot read");
  return text;
}

}  // namespace fitscale
