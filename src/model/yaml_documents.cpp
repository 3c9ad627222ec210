#include "model/yaml_documents.h"

#include <yaml-cpp/eventhandler.h>

#include <sstream>
#include <string>

#include "model/error.h"

namespace fitscale {
namespace {

// Sees only where each document of a stream starts.
class DocumentStarts : public YAML::EventHandler {
 public:
  YAML::Mark last;
  void OnDocumentStart(const YAML::Mark& mark) override { last = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// yaml-cpp 0.7's LoadAll never returns on some malformed streams ("{},", a stray "," after a
// document): its parser reports an empty document without consuming the token that stopped it,
// again and again, and the list of documents grows until memory runs out (jbeder/yaml-cpp#1040,
// fixed upstream after 0.8). A first pass over the events finds a document that starts where the
// previous one did and refuses the stream there. YAML::Load stops after the first document, so
// the same stream read as one document would pass with its tail ignored; this pass sees it too.
void refuse_stuck_stream(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  int previous = -1;
  while (parser.HandleNextDocument(starts)) {
    if (previous >= 0 && starts.last.pos == previous) {
      const auto at = static_cast<std::size_t>(previous);
      const std::string token = at < text.size() ? text.substr(at, 1) : "";
      throw YAML::ParserException(starts.last,
                                  "unexpected \"" + token + "\" where a document should start");
    }
    previous = starts.last.pos;
  }
}

bool empty_document(const YAML::Node& d) { return !d.IsDefined() || d.IsNull(); }

}  // namespace

std::vector<YAML::Node> load_yaml_documents(std::string_view text, std::string_view source) {
  try {
    const std::string owned(text);
    refuse_stuck_stream(owned);
    return YAML::LoadAll(owned);
  } catch (const YAML::Exception& e) {
    std::string where(source);
    if (e.mark.line >= 0) {
      where += ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
    }
    throw InputError(where + ": invalid YAML: " + e.msg);
  }
}

YAML::Node load_yaml_document(std::string_view text, std::string_view source) {
  std::vector<YAML::Node> docs = load_yaml_documents(text, source);
  YAML::Node found(YAML::NodeType::Null);
  bool seen = false;
  for (const YAML::Node& d : docs) {
    if (empty_document(d)) continue;
    if (seen) {
      const YAML::Mark m = d.Mark();
      throw InputError(std::string(source) + ":" + std::to_string(m.line + 1) +
                       ": a second YAML document; this file holds one (remove the `---` "
                       "before this line, or split the file)");
    }
    found = d;
    seen = true;
  }
  return found;
}

std::vector<YAML::Node> manifest_objects(const std::vector<YAML::Node>& documents) {
  std::vector<YAML::Node> out;
  out.reserve(documents.size());
  for (const YAML::Node& d : documents) {
    if (empty_document(d)) continue;
    if (d.IsMap() && d["kind"] && d["kind"].IsScalar() && d["kind"].Scalar() == "List" &&
        d["items"] && d["items"].IsSequence()) {
      for (const YAML::Node& item : d["items"]) out.push_back(item);
    } else {
      out.push_back(d);
    }
  }
  return out;
}

}  // namespace fitscale
