#include "vcluster/selectors.h"

#include <cctype>

#include "vcluster/api_error.h"

namespace fitscale::vcluster {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits on commas that are not inside parentheses (the value lists of `in` / `notin`).
std::vector<std::string_view> split_terms(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      auto t = trim(text.substr(start, i - start));
      if (!t.empty()) out.push_back(t);
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      --depth;
    }
  }
  if (depth != 0)
    throw bad_request("unbalanced parentheses in selector \"" + std::string(text) + "\"");
  return out;
}

bool valid_key(std::string_view k) {
  if (k.empty()) return false;
  for (char c : k) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
          c == '/')) {
      return false;
    }
  }
  return true;
}

Requirement parse_term(std::string_view term, std::string_view whole) {
  auto fail = [&](const std::string& why) {
    return bad_request("unable to parse requirement \"" + std::string(term) + "\" in selector \"" +
                       std::string(whole) + "\": " + why);
  };
  Requirement r;
  if (term.front() == '!') {
    r.key = std::string(trim(term.substr(1)));
    r.op = SelectorOp::DoesNotExist;
    if (!valid_key(r.key)) throw fail("invalid label key");
    return r;
  }
  // Set-based: "key in (a,b)" / "key notin (a)".
  auto paren = term.find('(');
  if (paren != std::string_view::npos) {
    if (term.back() != ')') throw fail("missing ')'");
    auto head = trim(term.substr(0, paren));
    auto sp = head.find_last_of(" \t");
    if (sp == std::string_view::npos) throw fail("expected 'in' or 'notin'");
    auto op = trim(head.substr(sp + 1));
    r.key = std::string(trim(head.substr(0, sp)));
    if (op == "in") {
      r.op = SelectorOp::In;
    } else if (op == "notin") {
      r.op = SelectorOp::NotIn;
    } else {
      throw fail("unknown operator \"" + std::string(op) + "\"");
    }
    if (!valid_key(r.key)) throw fail("invalid label key");
    auto inner = term.substr(paren + 1, term.size() - paren - 2);
    std::size_t start = 0;
    for (std::size_t i = 0; i <= inner.size(); ++i) {
      if (i == inner.size() || inner[i] == ',') {
        auto v = trim(inner.substr(start, i - start));
        if (!v.empty()) r.values.emplace_back(v);
        start = i + 1;
      }
    }
    return r;
  }
  for (std::string_view op : {"!=", "==", "="}) {
    auto pos = term.find(op);
    if (pos == std::string_view::npos) continue;
    r.key = std::string(trim(term.substr(0, pos)));
    r.values = {std::string(trim(term.substr(pos + op.size())))};
    r.op = op == "!=" ? SelectorOp::NotIn : SelectorOp::In;
    if (!valid_key(r.key)) throw fail("invalid label key");
    return r;
  }
  r.key = std::string(term);
  r.op = SelectorOp::Exists;
  if (!valid_key(r.key)) throw fail("invalid label key");
  return r;
}

const nlohmann::json* lookup(const nlohmann::json& obj, std::string_view path) {
  const nlohmann::json* cur = &obj;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto dot = path.find('.', start);
    std::string part(
        path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(part);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return cur;
}

std::string field_text(const nlohmann::json& obj, std::string_view path) {
  const auto* v = lookup(obj, path);
  if (!v || v->is_null()) return "";
  if (v->is_string()) return v->get<std::string>();
  return v->dump();
}

}  // namespace

std::vector<Requirement> parse_label_selector(std::string_view text) {
  std::vector<Requirement> out;
  for (auto term : split_terms(text)) out.push_back(parse_term(term, text));
  return out;
}

Labels labels_of(const nlohmann::json& obj) {
  Labels out;
  auto md = obj.find("metadata");
  if (md == obj.end() || !md->is_object()) return out;
  auto l = md->find("labels");
  if (l == md->end() || !l->is_object()) return out;
  for (auto it = l->begin(); it != l->end(); ++it) {
    if (it.value().is_string()) out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

bool matches_labels(const std::vector<Requirement>& selector, const nlohmann::json& obj) {
  if (selector.empty()) return true;
  const Labels labels = labels_of(obj);
  for (const auto& r : selector) {
    if (!matches(r, labels)) return false;
  }
  return true;
}

std::vector<FieldRequirement> parse_field_selector(std::string_view text) {
  std::vector<FieldRequirement> out;
  for (auto term : split_terms(text)) {
    FieldRequirement f;
    std::size_t pos;
    std::size_t len;
    if ((pos = term.find("!=")) != std::string_view::npos) {
      f.equals = false;
      len = 2;
    } else if ((pos = term.find("==")) != std::string_view::npos) {
      len = 2;
    } else if ((pos = term.find('=')) != std::string_view::npos) {
      len = 1;
    } else {
      throw bad_request("invalid field selector \"" + std::string(text) + "\": \"" +
                        std::string(term) + "\" has no operator");
    }
    f.path = std::string(trim(term.substr(0, pos)));
    f.value = std::string(trim(term.substr(pos + len)));
    if (f.path.empty()) throw bad_request("invalid field selector \"" + std::string(text) + "\"");
    out.push_back(std::move(f));
  }
  return out;
}

bool matches_fields(const std::vector<FieldRequirement>& selector, const nlohmann::json& obj) {
  for (const auto& f : selector) {
    if ((field_text(obj, f.path) == f.value) != f.equals) return false;
  }
  return true;
}

LabelSelector label_selector_from_json(const nlohmann::json& j) {
  LabelSelector s;
  if (!j.is_object()) return s;
  if (auto ml = j.find("matchLabels"); ml != j.end() && ml->is_object()) {
    for (auto it = ml->begin(); it != ml->end(); ++it)
      s.match_labels[it.key()] = it.value().get<std::string>();
  }
  if (auto me = j.find("matchExpressions"); me != j.end() && me->is_array()) {
    for (const auto& e : *me) {
      Requirement r;
      r.key = e.value("key", std::string());
      const std::string op = e.value("operator", std::string());
      if (op == "In")
        r.op = SelectorOp::In;
      else if (op == "NotIn")
        r.op = SelectorOp::NotIn;
      else if (op == "Exists")
        r.op = SelectorOp::Exists;
      else if (op == "DoesNotExist")
        r.op = SelectorOp::DoesNotExist;
      else
        throw bad_request("matchExpressions: unknown operator \"" + op + "\"");
      if (auto v = e.find("values"); v != e.end() && v->is_array()) {
        for (const auto& x : *v) r.values.push_back(x.get<std::string>());
      }
      s.match_expressions.push_back(std::move(r));
    }
  }
  return s;
}

}  // namespace fitscale::vcluster
