#include "model/yaml_reader.h"

#include <charconv>
#include <cmath>

#include "model/error.h"

namespace fitscale {

void YamlReader::fail(const YAML::Node& at, const std::string& path, const std::string& msg) const {
  std::string where = source_;
  const YAML::Mark m = at.IsDefined() ? at.Mark() : YAML::Mark::null_mark();
  if (m.line >= 0) where += ":" + std::to_string(m.line + 1);
  throw InputError(where + ": " + (path.empty() ? "" : path + ": ") + msg);
}

std::string YamlReader::shown(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsMap()) return "a map";
  if (n.IsSequence()) return "a list";
  return "\"" + n.Scalar() + "\"";
}

std::string YamlReader::string(const YAML::Node& n, const std::string& path,
                               bool allow_empty) const {
  if (!n.IsScalar()) fail(n, path, "must be a string, got " + shown(n));
  if (!allow_empty && n.Scalar().empty()) fail(n, path, "must not be empty");
  return n.Scalar();
}

std::optional<std::int64_t> YamlReader::whole_number(const std::string& s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> YamlReader::finite_number(const std::string& s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

}  // namespace fitscale
