#include "kube/decode_yaml.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "model/error.h"
#include "model/yaml_documents.h"

namespace fitscale {
namespace {

bool is_json_number(const std::string& s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  if (i < n && s[i] == '-') ++i;
  if (i >= n) return false;
  if (s[i] == '0') {
    ++i;
  } else if (s[i] >= '1' && s[i] <= '9') {
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
  } else {
    return false;
  }
  if (i < n && s[i] == '.') {
    ++i;
    const std::size_t start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start) return false;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    const std::size_t start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start) return false;
  }
  return i == n;
}

void append_json_string(std::string& out, const std::string& s) {
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

// How far one document may go when turned into JSON. Aliases let a few hundred bytes of YAML name
// a structure that contains itself (`&a [*a]`, endless recursion) or a billion copies of a string
// (each alias repeating the one before), which kubectl refuses as well.
struct JsonBudget {
  std::size_t max_bytes;
  int max_depth = 256;  // far deeper than any Kubernetes object
};

void to_json(const YAML::Node& node, std::string& out, const JsonBudget& budget, int depth) {
  if (depth > budget.max_depth) {
    throw InputError("nested more than " + std::to_string(budget.max_depth) +
                     " levels deep (a YAML alias inside its own anchor?)");
  }
  if (out.size() > budget.max_bytes) {
    throw InputError("YAML aliases expand it to more than " + std::to_string(budget.max_bytes) +
                     " bytes of JSON");
  }
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out += "null";
      return;
    case YAML::NodeType::Scalar: {
      const std::string& s = node.Scalar();
      // "?" is a plain (unquoted) scalar whose type YAML resolves from its text.
      if (node.Tag() == "?") {
        if (s == "true" || s == "True" || s == "TRUE") {
          out += "true";
          return;
        }
        if (s == "false" || s == "False" || s == "FALSE") {
          out += "false";
          return;
        }
        if (s == "null" || s == "Null" || s == "NULL" || s == "~") {
          out += "null";
          return;
        }
        if (is_json_number(s)) {
          out += s;
          return;
        }
      }
      append_json_string(out, s);
      return;
    }
    case YAML::NodeType::Sequence: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : node) {
        if (!first) out.push_back(',');
        first = false;
        to_json(item, out, budget, depth + 1);
      }
      out.push_back(']');
      return;
    }
    case YAML::NodeType::Map: {
      out.push_back('{');
      bool first = true;
      for (const auto& kv : node) {
        if (!first) out.push_back(',');
        first = false;
        append_json_string(out, kv.first.Scalar());
        out.push_back(':');
        to_json(kv.second, out, budget, depth + 1);
      }
      out.push_back('}');
      return;
    }
  }
}

// `node` as JSON; `source_size` (the YAML's length) sets the expansion budget.
std::string json_of(const YAML::Node& node, std::size_t source_size) {
  std::string out;
  to_json(node, out, JsonBudget{(std::size_t{1} << 20) + 16 * source_size}, 0);
  return out;
}

}  // namespace

std::string yaml_to_json(std::string_view yaml_text) {
  auto docs = load_yaml_documents(yaml_text, "yaml");
  if (docs.empty()) return "null";
  try {
    return json_of(docs.front(), yaml_text.size());
  } catch (const InputError& e) {
    throw InputError(std::string("yaml: ") + e.what());
  }
}

std::vector<YamlObject> split_yaml_objects(std::string_view text, std::string_view source) {
  std::vector<YamlObject> out;
  const std::string src(source);
  // Each object's JSON, or an InputError at its line.
  auto json_at = [&](const YAML::Node& node, const std::string& where) {
    try {
      return json_of(node, text.size());
    } catch (const InputError& e) {
      throw InputError(where + ": " + e.what());
    }
  };
  for (const YAML::Node& doc : load_yaml_documents(text, source)) {
    if (doc.IsNull()) continue;  // an empty document, e.g. after a trailing "---"
    const std::string where = src + ":" + std::to_string(doc.Mark().line + 1);
    if (!doc.IsMap()) {
      out.push_back({json_at(doc, where), where, ""});  // the decoder refuses it with this place
      continue;
    }
    std::string kind;
    if (const YAML::Node k = doc["kind"]; k && k.IsScalar()) kind = k.Scalar();
    const YAML::Node items = doc["items"];
    const bool is_list = kind.size() >= 4 && kind.compare(kind.size() - 4, 4, "List") == 0;
    if (!is_list || !items || !items.IsSequence()) {
      out.push_back({json_at(doc, where), where, ""});
      continue;
    }
    const std::string hint = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
    for (const YAML::Node& item : items) {
      const std::string item_where = src + ":" + std::to_string(item.Mark().line + 1);
      out.push_back({json_at(item, item_where), item_where, hint});
    }
  }
  return out;
}

}  // namespace fitscale
