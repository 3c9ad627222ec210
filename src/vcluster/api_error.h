#pragma once
// Errors the virtual API server returns, shaped as metav1.Status so that kubectl and client-go
// print them the way a real API server's errors are printed.
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace fitscale::vcluster {

class ApiError : public std::runtime_error {
 public:
  ApiError(int code, std::string reason, const std::string& message)
      : std::runtime_error(message), code_(code), reason_(std::move(reason)) {}
  int code() const { return code_; }
  const std::string& reason() const { return reason_; }
  // details.causes, as kube-apiserver lists the fields of a 422 Invalid.
  ApiError& with_cause(const std::string& type, const std::string& field,
                       const std::string& message) {
    causes_.push_back({{"reason", type}, {"message", message}, {"field", field}});
    return *this;
  }
  const nlohmann::json& causes() const { return causes_; }
  // metav1.StatusDetails fields beyond name and kind ("group", "causes"), for 422 Invalid.
  nlohmann::json details = nlohmann::json::object();

 private:
  int code_;
  std::string reason_;
  nlohmann::json causes_ = nlohmann::json::array();
};

inline ApiError not_found(const std::string& resource, const std::string& name) {
  return ApiError(404, "NotFound", resource + " \"" + name + "\" not found");
}
inline ApiError already_exists(const std::string& resource, const std::string& name) {
  return ApiError(409, "AlreadyExists", resource + " \"" + name + "\" already exists");
}
inline ApiError conflict(const std::string& resource, const std::string& name) {
  return ApiError(409, "Conflict",
                  "Operation cannot be fulfilled on " + resource + " \"" + name +
                      "\": the object has been modified; please apply your changes to the latest "
                      "version and try again");
}
inline ApiError bad_request(const std::string& message) {
  return ApiError(400, "BadRequest", message);
}
inline ApiError expired(const std::string& message) { return ApiError(410, "Expired", message); }

// metav1.Status for an error (also used inside a watch ERROR event).
nlohmann::json status_json(const ApiError& e, const std::string& resource = "",
                           const std::string& name = "");
nlohmann::json success_status();

}  // namespace fitscale::vcluster
