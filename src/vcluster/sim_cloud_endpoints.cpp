// /fitscale.io/sim-cloud/{instances,launch,terminate,inject,interrupt}: the virtual cluster's
// cloud, exposed to `fitscale run --provider sim` (RemoteSimCloud) and to tests.
#include "cloud/sim/sim_cloud_wire.h"
#include "model/error.h"
#include "vcluster/api_error.h"
#include "vcluster/http_server.h"
#include "vcluster/rest_api.h"

namespace fitscale::vcluster {

void ApiHttpServer::sim_cloud(const std::string& verb, const httplib::Request& req,
                              httplib::Response& res) {
  auto reply = [&](int status, const nlohmann::json& body) {
    res.status = status;
    res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                    "application/json");
  };
  try {
    if (verb == "instances" && req.method == "GET") {
      // ?unchangedSince=G: a quiet loop's check costs one small reply, not the whole listing
      // (1.7 MB at 3,600 instances), when the listing is still at generation G.
      const std::optional<std::uint64_t> generation = bridge_.listing_generation();
      if (generation && req.has_param("unchangedSince") &&
          req.get_param_value("unchangedSince") == std::to_string(*generation)) {
        reply(200, {{"unchanged", true}, {"generation", *generation}});
        return;
      }
      nlohmann::json list = nlohmann::json::array();
      for (const auto& i : bridge_.list_instances()) list.push_back(instance_to_json(i));
      nlohmann::json body = {{"instances", std::move(list)}};
      if (generation) body["generation"] = *generation;
      reply(200, body);
      return;
    }
    if (req.method != "POST")
      throw ApiError(405, "MethodNotAllowed", "use POST for sim-cloud/" + verb);
    const nlohmann::json body = parse_body(req.body.empty() ? "{}" : req.body);
    if (verb == "launch") {
      auto request = launch_request_from_json(body);
      // One request may not ask for an unbounded number of machines (each is a Node object).
      constexpr int kMaxLaunchCount = 1000;
      if (request.count < 1 || request.count > kMaxLaunchCount) {
        throw ApiError(422, "Invalid",
                       "launch: count must be between 1 and " + std::to_string(kMaxLaunchCount) +
                           ", got " + std::to_string(request.count))
            .with_cause("FieldValueInvalid", "count", "must be between 1 and 1000");
      }
      reply(200, launch_result_to_json(bridge_.launch(request)));
    } else if (verb == "terminate") {
      if (!body.contains("ids") || !body["ids"].is_array())
        throw bad_request("terminate: field ids (array) is required");
      bridge_.terminate(body["ids"].get<std::vector<std::string>>());
      reply(200, nlohmann::json::object());
    } else if (verb == "inject") {
      const std::string offering = body.value("offering", "");
      if (offering.empty())
        throw bad_request("inject: field offering (TYPE/ZONE/CAPACITY) is required");
      bridge_.inject(offering, body.value("code", "InsufficientInstanceCapacity"),
                     body.value("count", 1));
      reply(200, nlohmann::json::object());
    } else if (verb == "interrupt") {
      const std::string id = body.value("id", "");
      if (id.empty()) throw bad_request("interrupt: field id is required");
      bridge_.interrupt(id);
      reply(200, nlohmann::json::object());
    } else {
      throw ApiError(404, "NotFound", "no sim-cloud endpoint \"" + verb + "\"");
    }
  } catch (const ApiError& e) {
    reply(e.code(), status_json(e));
  } catch (const InputError& e) {
    reply(400, status_json(bad_request(e.what())));
  } catch (const nlohmann::json::exception& e) {
    reply(400, status_json(bad_request(e.what())));
  } catch (const std::exception& e) {
    reply(500, status_json(ApiError(500, "InternalError", e.what())));
  }
}

}  // namespace fitscale::vcluster
