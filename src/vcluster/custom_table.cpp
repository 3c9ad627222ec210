#include "vcluster/custom_table.h"

#include <fmt/format.h>

namespace fitscale::vcluster {
namespace {

using nlohmann::json;

// One step of a JSONPath: a field, an index, or a [?(@.a.b=="v")] filter.
struct Step {
  enum Kind { Field, Index, Filter } kind = Field;
  std::string field;
  std::size_t index = 0;
  std::string filter_path;   // "type" or "a.b" after @.
  std::string filter_value;  // the JSON text of the value compared with
};

std::vector<Step> parse_path(std::string p) {
  // kubectl-style {.a.b} braces are optional in CRDs.
  if (p.size() >= 2 && p.front() == '{' && p.back() == '}') p = p.substr(1, p.size() - 2);
  std::vector<Step> steps;
  std::size_t i = 0;
  while (i < p.size()) {
    if (p[i] == '.') {
      ++i;
      continue;
    }
    if (p[i] == '[') {
      const auto end = p.find(']', i);
      if (end == std::string::npos) return {};
      std::string inside = p.substr(i + 1, end - i - 1);
      i = end + 1;
      Step s;
      if (inside.rfind("?(@.", 0) == 0 && inside.back() == ')') {
        const std::string expr = inside.substr(4, inside.size() - 5);
        const auto eq = expr.find("==");
        if (eq == std::string::npos) return {};
        s.kind = Step::Filter;
        s.filter_path = expr.substr(0, eq);
        std::string v = expr.substr(eq + 2);
        if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
          s.filter_value = json(v.substr(1, v.size() - 2)).dump();
        } else {
          try {
            s.filter_value = json::parse(v).dump();
          } catch (const json::parse_error&) {
            return {};
          }
        }
      } else if (inside.size() >= 2 && (inside.front() == '\'' || inside.front() == '"')) {
        s.field = inside.substr(1, inside.size() - 2);  // ['a.b/c']
      } else {
        s.kind = Step::Index;
        try {
          s.index = std::stoul(inside);
        } catch (const std::exception&) {
          return {};
        }
      }
      steps.push_back(s);
      continue;
    }
    auto end = p.find_first_of(".[", i);
    if (end == std::string::npos) end = p.size();
    Step s;
    s.field = p.substr(i, end - i);
    steps.push_back(s);
    i = end;
  }
  return steps;
}

std::string cell_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

json cell(const PrinterColumn& c, const json& value, Time now) {
  if (value.is_null()) return nullptr;
  if (c.type == "date") {
    if (!value.is_string()) return "<invalid>";
    try {
      return human_duration(static_cast<long long>(now - parse_rfc3339(value.get<std::string>())));
    } catch (const std::exception&) {
      return "<invalid>";
    }
  }
  if (c.type == "integer") return value.is_number() ? value : json(nullptr);
  if (c.type == "number") return value.is_number() ? value : json(nullptr);
  if (c.type == "boolean") return value.is_boolean() ? value : json(nullptr);
  return cell_text(value);  // string: any value, printed
}

json column_definition(const PrinterColumn& c) {
  return {{"name", c.name},
          {"type", c.type},
          {"format", c.format},
          {"description", c.description},
          {"priority", c.priority}};
}

}  // namespace

bool wants_table(const std::string& accept) {
  return accept.find("as=Table") != std::string::npos &&
         accept.find("g=meta.k8s.io") != std::string::npos &&
         accept.find("v=v1") != std::string::npos;
}

json json_path_value(const json& obj, const std::string& path) {
  const auto steps = parse_path(path);
  if (steps.empty()) return nullptr;
  const json* at = &obj;
  for (const auto& s : steps) {
    if (s.kind == Step::Field) {
      if (!at->is_object() || !at->contains(s.field)) return nullptr;
      at = &(*at)[s.field];
    } else if (s.kind == Step::Index) {
      if (!at->is_array() || s.index >= at->size()) return nullptr;
      at = &(*at)[s.index];
    } else {
      if (!at->is_array()) return nullptr;
      const json* found = nullptr;
      for (const auto& item : *at) {
        if (json_path_value(item, "." + s.filter_path).dump() == s.filter_value) {
          found = &item;
          break;
        }
      }
      if (!found) return nullptr;
      at = found;
    }
  }
  return *at;
}

std::string human_duration(long long seconds) {
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return fmt::format("{}s", seconds);
  const long long minutes = seconds / 60;
  if (minutes < 10) {
    return seconds % 60 == 0 ? fmt::format("{}m", minutes)
                             : fmt::format("{}m{}s", minutes, seconds % 60);
  }
  if (minutes < 180) return fmt::format("{}m", minutes);
  const long long hours = minutes / 60;
  if (hours < 8) {
    return minutes % 60 == 0 ? fmt::format("{}h", hours)
                             : fmt::format("{}h{}m", hours, minutes % 60);
  }
  if (hours < 48) return fmt::format("{}h", hours);
  if (hours < 24LL * 8) {
    return hours % 24 == 0 ? fmt::format("{}d", hours / 24)
                           : fmt::format("{}d{}h", hours / 24, hours % 24);
  }
  if (hours < 24LL * 365 * 2) return fmt::format("{}d", hours / 24);
  const long long days = hours / 24;
  if (hours < 24LL * 365 * 8) {
    return days % 365 == 0 ? fmt::format("{}y", days / 365)
                           : fmt::format("{}y{}d", days / 365, days % 365);
  }
  return fmt::format("{}y", days / 365);
}

json custom_resource_table(const ResourceInfo& r, const std::vector<json>& items,
                           const json& list_metadata, const std::string& include_object, Time now) {
  std::vector<PrinterColumn> columns = r.printer_columns;
  if (columns.empty()) {
    columns.push_back({"Age", "date", "", "", 0, ".metadata.creationTimestamp"});
  }
  json defs = json::array({{{"name", "Name"},
                            {"type", "string"},
                            {"format", "name"},
                            {"description", "Name must be unique within a namespace."},
                            {"priority", 0}}});
  for (const auto& c : columns) defs.push_back(column_definition(c));
  json rows = json::array();
  for (const auto& obj : items) {
    json cells = json::array({obj.value("metadata", json::object()).value("name", "")});
    for (const auto& c : columns) cells.push_back(cell(c, json_path_value(obj, c.json_path), now));
    json row = {{"cells", cells}};
    if (include_object == "Object") {
      row["object"] = obj;
    } else if (include_object != "None") {
      row["object"] = {{"kind", "PartialObjectMetadata"},
                       {"apiVersion", "meta.k8s.io/v1"},
                       {"metadata", obj.value("metadata", json::object())}};
    }
    rows.push_back(row);
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", list_metadata},
          {"columnDefinitions", defs},
          {"rows", rows}};
}

json custom_resource_table(const ResourceInfo& r, const json& items, const json& list_metadata,
                           const std::string& include_object, Time now) {
  std::vector<json> v(items.begin(), items.end());
  return custom_resource_table(r, v, list_metadata, include_object, now);
}

}  // namespace fitscale::vcluster
