#pragma once
// Pool manifests for `fitscale validate --pools FILE`: every Pool document of a file (a List's
// items too), read exactly as `fitscale run` reads Pool objects (model/pool_manifest.h).
#include <string>
#include <vector>

#include "model/pool.h"

namespace fitscale::cli {

// Appends each error ("pools.yaml:7: spec.weight: ...") to `errors`; one bad document does not
// hide the next. A document of another kind is an error (a Karpenter NodePool is told to go
// through `fitscale import karpenter`). Names twice across the files are an error.
std::vector<Pool> read_pool_files(const std::vector<std::string>& paths,
                                  std::vector<std::string>& errors);

// What to tell someone who gave a Pool manifest or a Karpenter object where a config file goes;
// "" when the file is not one.
std::string manifest_hint(const std::string& path);

}  // namespace fitscale::cli
