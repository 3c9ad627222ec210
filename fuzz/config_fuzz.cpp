// Config files (`--config FILE`, `fitscale validate`): parse_config, its budgets, and a catalog
// built with its allocatable rule (tests/support/config_use.h).
#include "config_use.h"
#include "fuzz_main.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view text = fitscale::fuzz::as_text(data, size);
  fitscale::fuzz::require_contract("config.yaml",
                                   [&] { fitscale::bad_input::read_and_use_config(text); });
  return 0;
}
