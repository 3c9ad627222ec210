#include "kube/decode_codecs.h"

#include <memory>

#include "kube/decode.h"

namespace fitscale {

KubeCodecs default_kube_codecs(const std::vector<std::string>& gpu_models) {
  KubeCodecs c;

  auto pod_decoder = std::make_shared<JsonDecoder>(gpu_models);
  c.pods.resource = "pods";
  c.pods.path = "/api/v1/pods";
  c.pods.decode_list = [pod_decoder](std::string_view page,
                                     std::vector<std::pair<std::string, Pod>>& items,
                                     std::vector<std::pair<std::string, std::string>>& bad) {
    pod_decoder->decode_list_items(page, "Pod", &items, nullptr, nullptr, bad);
  };
  c.pods.decode_object = [pod_decoder](std::string_view json) { return pod_decoder->pod(json); };

  auto node_decoder = std::make_shared<JsonDecoder>(gpu_models);
  c.nodes.resource = "nodes";
  c.nodes.path = "/api/v1/nodes";
  c.nodes.decode_list = [node_decoder](std::string_view page,
                                       std::vector<std::pair<std::string, Node>>& items,
                                       std::vector<std::pair<std::string, std::string>>& bad) {
    node_decoder->decode_list_items(page, "Node", nullptr, &items, nullptr, bad);
  };
  c.nodes.decode_object = [node_decoder](std::string_view json) {
    return node_decoder->node(json);
  };

  auto pdb_decoder = std::make_shared<JsonDecoder>(gpu_models);
  c.pdbs.resource = "poddisruptionbudgets";
  c.pdbs.path = "/apis/policy/v1/poddisruptionbudgets";
  c.pdbs.decode_list = [pdb_decoder](
                           std::string_view page,
                           std::vector<std::pair<std::string, PodDisruptionBudgetView>>& items,
                           std::vector<std::pair<std::string, std::string>>& bad) {
    pdb_decoder->decode_list_items(page, "PodDisruptionBudget", nullptr, nullptr, &items, bad);
  };
  c.pdbs.decode_object = [pdb_decoder](std::string_view json) { return pdb_decoder->pdb(json); };
  return c;
}

}  // namespace fitscale
