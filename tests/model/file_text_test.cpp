#include "model/file_text.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "model/error.h"

namespace fitscale {
namespace {

std::string message_of(const std::string& path, const std::string& what) {
  try {
    read_file_text(path, what);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string message_of_limited(const std::string& path, const std::string& what,
                               std::size_t max_bytes) {
  try {
    read_file_text(path, what, max_bytes);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(FileText, ReadsEveryByteIncludingNul) {
  const auto path = std::filesystem::temp_directory_path() / "fitscale_file_text_test.bin";
  const std::string bytes("a,b\n\0\xff\r\nlast", 12);
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_EQ(read_file_text(path.string(), "trace"), bytes);
  std::filesystem::remove(path);
}

TEST(FileText, AMissingFileNamesThePathWhatItWasForAndWhy) {
  EXPECT_EQ(message_of("/no/such/trace.csv", "trace"),
            "/no/such/trace.csv (trace): cannot read: No such file or directory");
}

TEST(FileText, ADirectoryIsNotReadAsAnEmptyFile) {
  const auto dir = std::filesystem::temp_directory_path().string();
  EXPECT_EQ(message_of(dir, "catalog"), dir + " (catalog): is a directory");
}

TEST(FileText, AnEndlessFileIsRefusedAtItsLimitNotReadUntilMemoryRunsOut) {
  EXPECT_EQ(message_of_limited("/dev/zero", "token", 1 << 20),
            "/dev/zero (token): longer than 1048576 bytes; is it the right file?");
}

}  // namespace
}  // namespace fitscale
