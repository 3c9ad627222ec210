// Cluster dumps (`fitscale plan --cluster FILE`): decode_objects on JSON (simdjson) or YAML
// (yaml-cpp) Lists, strict and in the live controller's skip-bad-pods mode.
#include "fuzz_main.h"
#include "kube/decode.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view text = fitscale::fuzz::as_text(data, size);
  const std::vector<std::string> gpu_models = {"V100", "A100"};
  fitscale::fuzz::require_contract(
      "cluster.json", [&] { fitscale::decode_objects(text, "cluster.json", gpu_models, false); });
  fitscale::fuzz::require_contract(
      "cluster.json", [&] { fitscale::decode_objects(text, "cluster.json", gpu_models, true); });
  return 0;
}
