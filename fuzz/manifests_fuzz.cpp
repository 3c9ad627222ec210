// Pool, Budget and Karpenter manifests (`fitscale validate --pools/--budgets`, `fitscale import
// karpenter`): split into objects, each read, Budgets merged, Karpenter objects imported and the
// printed Pools read back (tests/support/manifest_use.h).
#include "fuzz_main.h"
#include "manifest_use.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view text = fitscale::fuzz::as_text(data, size);
  fitscale::fuzz::require_contract("manifests.yaml",
                                   [&] { fitscale::bad_input::read_and_use_manifests(text); });
  return 0;
}
