#pragma once
// Reading pools from YAML: the `pools:` list of the config file, and the `spec` of a Pool
// custom resource (the same schema, deploy/crds/pools.fitscale.io.yaml). Errors name the file,
// the line and the key path ("config.yaml:12: pools[1].requirements[0].operator: ...").
#include <string>
#include <string_view>
#include <vector>

#include "model/pool.h"

namespace YAML {
class Node;
}

namespace fitscale {

// `n` is the value of the `pools` key; `source` names the file in errors. Checks names are
// unique. Throws InputError.
std::vector<Pool> read_pools(const YAML::Node& n, const std::string& source);

// One pool's fields (everything but its name) from the map `n` at `path`.
Pool read_pool_spec(const YAML::Node& n, const std::string& source, const std::string& path,
                    std::string name);

// A pool's name is a DNS label (it is the value of the fitscale.io/pool label and a Pool
// object's name).
bool is_pool_name(std::string_view name);

// One line per pool for `fitscale validate`:
//   gpu-a100  weight 50  requirements fitscale.io/instance-family In [p4d]; taints ...; limits ...
std::string describe(const Pool& p);

}  // namespace fitscale
