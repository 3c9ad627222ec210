#pragma once
// What every reader of a YAML config or manifest (config.cpp, pool_config.cpp) says the same way:
// an error names the file, the line and the key path; a value is shown as the user wrote it; a
// scalar is read as a whole or a finite number only when all of it is one.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>

namespace fitscale {

class YamlReader {
 public:
  explicit YamlReader(std::string source) : source_(std::move(source)) {}

  // InputError "<source>:<line>: <path>: <msg>" (no line when the node has no mark, no path
  // when it is empty: the document itself).
  [[noreturn]] void fail(const YAML::Node& at, const std::string& path,
                         const std::string& msg) const;

  // What a value looks like, for "got ..." in messages.
  static std::string shown(const YAML::Node& n);

  // A scalar; empty only when `allow_empty`.
  std::string string(const YAML::Node& n, const std::string& path, bool allow_empty) const;

  // All of `s` as an integer or a finite double, else nullopt ("", "12x", "nan", "1e999").
  static std::optional<std::int64_t> whole_number(const std::string& s);
  static std::optional<double> finite_number(const std::string& s);

 private:
  std::string source_;
};

}  // namespace fitscale
