#include "cloud/common/cloud_error.h"

#include <algorithm>

namespace fitscale::cloud {

ErrorText unread_error_body(long status, std::string_view body) {
  return {"HTTP " + std::to_string(status), std::string(body.substr(0, 300))};
}

bool code_is_one_of(std::string_view code, std::initializer_list<std::string_view> codes) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

}  // namespace fitscale::cloud
