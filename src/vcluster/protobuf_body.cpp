#include "vcluster/protobuf_body.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "vcluster/api_error.h"
#include "vcluster/protobuf_reader.h"
#include "vcluster/protobuf_schema.h"

namespace fitscale::vcluster {
namespace {

ApiError malformed() { return ProtobufReader::malformed(); }

using Reader = ProtobufReader;

nlohmann::json string_map_entry(std::string_view entry) {
  std::string k, v;
  Reader(entry).fields([&](std::uint64_t f, Reader& r) {
    if (f == 1)
      k = r.bytes();
    else if (f == 2)
      v = r.bytes();
    else
      return false;
    return true;
  });
  return {k, v};
}

nlohmann::json object_meta(std::string_view bytes) {
  nlohmann::json md = nlohmann::json::object();
  Reader(bytes).fields([&](std::uint64_t f, Reader& r) {
    switch (f) {
      case 1:
        md["name"] = std::string(r.bytes());
        return true;
      case 2:
        md["generateName"] = std::string(r.bytes());
        return true;
      case 3:
        md["namespace"] = std::string(r.bytes());
        return true;
      case 11: {
        auto e = string_map_entry(r.bytes());
        md["labels"][e[0].get<std::string>()] = e[1];
        return true;
      }
      case 12: {
        auto e = string_map_entry(r.bytes());
        md["annotations"][e[0].get<std::string>()] = e[1];
        return true;
      }
      default:
        return false;
    }
  });
  return md;
}

// authorization/v1 ResourceAttributes or NonResourceAttributes: string fields by number.
nlohmann::json string_fields(std::string_view bytes,
                             const std::vector<std::pair<std::uint64_t, const char*>>& names) {
  nlohmann::json out = nlohmann::json::object();
  Reader(bytes).fields([&](std::uint64_t f, Reader& r) {
    for (const auto& [number, name] : names) {
      if (number == f) {
        out[name] = std::string(r.bytes());
        return true;
      }
    }
    return false;
  });
  return out;
}

// SelfSubjectAccessReviewSpec (kubectl auth can-i sends the review as protobuf).
nlohmann::json access_review_spec(std::string_view bytes) {
  nlohmann::json spec = nlohmann::json::object();
  Reader(bytes).fields([&](std::uint64_t f, Reader& r) {
    if (f == 1) {
      spec["resourceAttributes"] = string_fields(r.bytes(), {{1, "namespace"},
                                                             {2, "verb"},
                                                             {3, "group"},
                                                             {4, "version"},
                                                             {5, "resource"},
                                                             {6, "subresource"},
                                                             {7, "name"}});
      return true;
    }
    if (f == 2) {
      spec["nonResourceAttributes"] = string_fields(r.bytes(), {{1, "path"}, {2, "verb"}});
      return true;
    }
    return false;
  });
  return spec;
}

}  // namespace

nlohmann::json decode_protobuf_body(std::string_view body) {
  constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic) throw malformed();
  std::string api_version, kind;
  std::string_view raw;
  Reader(body.substr(4)).fields([&](std::uint64_t f, Reader& r) {
    if (f == 1) {
      Reader(r.bytes()).fields([&](std::uint64_t tf, Reader& tr) {
        if (tf == 1)
          api_version = tr.bytes();
        else if (tf == 2)
          kind = tr.bytes();
        else
          return false;
        return true;
      });
      return true;
    }
    if (f == 2) {
      raw = r.bytes();
      return true;
    }
    return false;
  });
  nlohmann::json obj;
  if (kind == "SelfSubjectAccessReview") {
    // kubectl auth can-i sends its review as protobuf; the schema decoder has no such kind.
    obj = {{"metadata", nlohmann::json::object()}};
    Reader(raw).fields([&](std::uint64_t f, Reader& r) {
      if (f == 1) {
        obj["metadata"] = object_meta(r.bytes());
        return true;
      }
      if (f == 2) {
        obj["spec"] = access_review_spec(r.bytes());
        return true;
      }
      return false;
    });
  } else {
    obj = decode_protobuf_object(kind, raw);
  }
  if (obj.is_null()) {
    // The answer kube-apiserver gives a body type it cannot decode.
    throw ApiError(415, "UnsupportedMediaType",
                   "the body of the request was in an unknown format - accepted media types "
                   "include: application/json, application/yaml (this virtual cluster reads "
                   "protobuf only for Namespace, ConfigMap, Secret, ServiceAccount, Service, "
                   "Deployment, Job, PodDisruptionBudget, PriorityClass, Role, ClusterRole, "
                   "RoleBinding, ClusterRoleBinding and SelfSubjectAccessReview; " +
                       kind + " was sent)");
  }
  obj["apiVersion"] = api_version;
  obj["kind"] = kind;
  return obj;
}

}  // namespace fitscale::vcluster
