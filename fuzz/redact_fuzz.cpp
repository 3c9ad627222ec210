// The log redactor (obs/redact.h), which every log line passes through, on tenant text: any bytes
// must come back without an exception, a crash or a hang (libFuzzer's -timeout; the regexes it
// replaced overflowed the stack on 30 KB), and a credential planted after them must be gone.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "fuzz_main.h"
#include "model/bounded_text.h"
#include "obs/redact.h"

namespace {

[[noreturn]] void broken(const char* what, const std::string& input) {
  std::fprintf(stderr, "redaction contract broken: %s\ninput: %s\n", what,
               fitscale::bad_input::shown(input).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string text(fitscale::fuzz::as_text(data, size));
  const std::string planted =
      text + " AKIAIOSFODNN7EXAMPLE Authorization: Bearer s3cr3tTOKENvalue password=hunter2 " +
      text;
  try {
    const std::string plain = fitscale::obs::redact_text(text);
    if (plain.size() > 3 * text.size()) broken("output more than 3x the input", text);
    const std::string out = fitscale::obs::redact_text(planted);
    for (const char* secret : {"AKIAIOSFODNN7EXAMPLE", "s3cr3tTOKENvalue", "hunter2"}) {
      // (Unless the input itself holds it where it is no credential.)
      if (out.find(secret) != std::string::npos && text.find(secret) == std::string::npos)
        broken(secret, planted);
    }
    (void)fitscale::obs::redact_field(text, text);
    (void)fitscale::obs::url_origin(text);
    if (fitscale::bounded_text(text).size() > fitscale::kQuotedValueLimit + 32)
      broken("bounded_text longer than its limit", text);
  } catch (const std::exception& e) {
    broken(e.what(), text);
  }
  return 0;
}
