// Kubernetes API responses as the informers read them: a list page of one kind (bad items are
// reported and skipped) and single watch-event objects. Errors name the object, not a file, so
// the contract here is "InputError with a message", any place.
#include "fuzz_main.h"
#include "kube/decode.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view text = fitscale::fuzz::as_text(data, size);
  fitscale::JsonDecoder decoder({"V100", "A100"});
  std::vector<std::pair<std::string, fitscale::Pod>> pods;
  std::vector<std::pair<std::string, fitscale::Node>> nodes;
  std::vector<std::pair<std::string, fitscale::PodDisruptionBudgetView>> pdbs;
  std::vector<std::pair<std::string, std::string>> bad;
  using fitscale::fuzz::require_contract;
  require_contract("",
                   [&] { decoder.decode_list_items(text, "Pod", &pods, nullptr, nullptr, bad); });
  require_contract("",
                   [&] { decoder.decode_list_items(text, "Node", nullptr, &nodes, nullptr, bad); });
  require_contract("", [&] {
    decoder.decode_list_items(text, "PodDisruptionBudget", nullptr, nullptr, &pdbs, bad);
  });
  require_contract("", [&] { decoder.pod(text); });
  require_contract("", [&] { decoder.node(text); });
  require_contract("", [&] { decoder.pdb(text); });
  return 0;
}
