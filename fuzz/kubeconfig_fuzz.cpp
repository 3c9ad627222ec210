// Kubeconfig files (`fitscale run --kubeconfig FILE`): parse_kubeconfig. Relative file references
// resolve against a directory that does not exist, so they fail with InputError.
#include "fuzz_main.h"
#include "kube/kubeconfig.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view text = fitscale::fuzz::as_text(data, size);
  fitscale::fuzz::require_contract("kc.yaml", [&] {
    fitscale::parse_kubeconfig(text, "kc.yaml", "/nonexistent-fitscale-fuzz");
  });
  return 0;
}
