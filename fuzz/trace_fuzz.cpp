// Job traces (`fitscale simulate --trace FILE`): parse_trace.
#include "fuzz_main.h"
#include "sim/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view text = fitscale::fuzz::as_text(data, size);
  fitscale::fuzz::require_contract("trace.csv", [&] { fitscale::parse_trace(text, "trace.csv"); });
  return 0;
}
