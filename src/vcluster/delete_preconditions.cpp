#include "vcluster/delete_preconditions.h"

#include "vcluster/api_error.h"
#include "vcluster/object_meta.h"

namespace fitscale::vcluster {

void check_delete_preconditions(const ResourceInfo& r, const nlohmann::json& options,
                                const nlohmann::json& stored) {
  if (!options.is_object() || !options.contains("preconditions")) return;
  const auto& pre = options["preconditions"];
  if (pre.is_null()) return;
  if (!pre.is_object()) throw bad_request("DeleteOptions.preconditions must be an object");
  auto check = [&](const char* field, const char* what) {
    if (!pre.contains(field) || pre[field].is_null()) return;
    if (!pre[field].is_string()) {
      throw bad_request(std::string("DeleteOptions.preconditions.") + field + " must be a string");
    }
    const std::string want = pre[field].get<std::string>();
    const std::string have = meta_string(stored, field);
    if (want != have) {
      ApiError e(409, "Conflict",
                 "Operation cannot be fulfilled on " + r.plural + " \"" + name_of(stored) +
                     "\": Precondition failed: " + what + " in precondition: " + want + ", " +
                     what + " in object meta: " + have);
      throw e;
    }
  };
  check("uid", "UID");
  check("resourceVersion", "ResourceVersion");
}

}  // namespace fitscale::vcluster
