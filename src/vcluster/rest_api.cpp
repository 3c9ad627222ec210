#include "vcluster/rest_api.h"

#include <cctype>
#include <functional>
#include <set>
#include <vector>

#include "model/time.h"
#include "vcluster/access_review.h"
#include "vcluster/admission.h"
#include "vcluster/api_error.h"
#include "vcluster/custom_resources.h"
#include "vcluster/custom_table.h"
#include "vcluster/delete_preconditions.h"
#include "vcluster/event_conversion.h"
#include "vcluster/field_validation.h"
#include "vcluster/garbage_collector.h"
#include "vcluster/list_pages.h"
#include "vcluster/name_validation.h"
#include "vcluster/object_meta.h"
#include "vcluster/patch.h"
#include "vcluster/priority_class.h"
#include "vcluster/protobuf_body.h"
#include "vcluster/request_body.h"
#include "vcluster/scale_subresource.h"
#include "vcluster/selectors.h"
#include "vcluster/server_side_apply.h"
#include "vcluster/tables.h"

namespace fitscale::vcluster {
namespace {

std::string query_value(const ApiRequest& req, const std::string& key) {
  auto it = req.query.find(key);
  return it == req.query.end() ? "" : it->second;
}

bool is_status(const ApiRequest& req) { return req.path.subresource == "status"; }

// dryRun=All: the request is checked and answered as usual, but nothing is stored.
bool dry_run(const ApiRequest& req) {
  auto it = req.query.find("dryRun");
  if (it == req.query.end() || it->second.empty()) return false;
  if (it->second != "All") {
    throw bad_request("Invalid dryRun value \"" + it->second + "\": only \"All\" is supported");
  }
  return true;
}

std::optional<ApiPath> parse_path_with(
    const std::string& path,
    const std::function<const ResourceInfo*(const std::string&, const std::string&,
                                            const std::string&)>& find);

}  // namespace

bool query_flag(const std::map<std::string, std::string>& query, const std::string& key) {
  auto it = query.find(key);
  if (it == query.end()) return false;
  std::string v = it->second;
  for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v != "0" && v != "false";
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < path.size()) {
    auto slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

nlohmann::json parse_body(const std::string& body) { return parse_json_body(body); }

std::optional<ApiPath> parse_api_path(const ResourceRegistry& registry, const std::string& path) {
  return parse_path_with(path, [&](const std::string& g, const std::string& v,
                                   const std::string& p) { return registry.find(g, v, p); });
}

std::optional<ApiPath> parse_api_path(const std::string& path) {
  return parse_path_with(path, [](const std::string& g, const std::string& v,
                                  const std::string& p) { return find_builtin(g, v, p); });
}

namespace {

std::optional<ApiPath> parse_path_with(
    const std::string& path,
    const std::function<const ResourceInfo*(const std::string&, const std::string&,
                                            const std::string&)>& find) {
  auto seg = split_path(path);
  std::string group;
  std::string version;
  std::size_t i;
  if (seg.size() >= 3 && seg[0] == "api") {
    version = seg[1];
    i = 2;
  } else if (seg.size() >= 4 && seg[0] == "apis") {
    group = seg[1];
    version = seg[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  ApiPath p;
  if (seg[i] == "watch") {
    p.legacy_watch = true;
    ++i;
  }
  std::vector<std::string> rest(seg.begin() + static_cast<long>(i), seg.end());
  // namespaces/NS/RESOURCE/... addresses a namespaced resource; namespaces[/NAME[/status]] itself.
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    p.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3) throw not_found("path", path);
  p.resource = find(group, version, rest[0]);
  if (!p.resource) {
    throw ApiError(404, "NotFound",
                   "the server could not find the requested resource (" + path + ")");
  }
  if (rest.size() >= 2) p.name = rest[1];
  if (rest.size() == 3) {
    p.subresource = rest[2];
    bool known = false;
    for (const auto& s : p.resource->subresources) known |= s == p.subresource;
    if (!known)
      throw ApiError(404, "NotFound",
                     "the server could not find the requested resource (" + path + ")");
  }
  if (!p.resource->namespaced && !p.ns.empty()) throw not_found("path", path);
  return p;
}

}  // namespace

RestApi::RestApi(ObjectStore& store, const Clock& clock, WebhookPost webhooks)
    : store_(store), clock_(clock), webhooks_(store, std::move(webhooks)) {
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    ensure_namespace(ns);
  }
  ensure_system_priority_classes(store_);
}

void RestApi::ensure_namespace(const std::string& ns) {
  if (ns.empty() || store_.find("namespaces", "", ns)) return;
  nlohmann::json obj = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}};
  admit_create(resource_by_plural("namespaces"), obj);
  try {
    store_.create("namespaces", "", std::move(obj));
  } catch (const ApiError&) {
    // Created concurrently by another request: the namespace exists, which is all we need.
  }
}

ApiResponse RestApi::handle(const ApiRequest& req) {
  try {
    const std::string& m = req.method;
    const auto& sub = req.path.subresource;
    if (m == "GET" && sub == "log") return pod_log(req);
    if (m == "GET" && sub == "scale") return get_scale(req);
    if ((m == "PUT" || m == "PATCH") && sub == "scale") return update_scale(req);
    if (m == "GET") return get_or_list(req);
    if (m == "POST" && sub == "eviction") return evict(req);
    if (m == "POST" && sub == "binding") return bind(req);
    if (m == "POST" && req.path.name.empty()) return create(req);
    if (m == "PUT" && !req.path.name.empty() && (sub.empty() || sub == "status"))
      return replace(req);
    if (m == "PATCH" && !req.path.name.empty() && (sub.empty() || sub == "status"))
      return patch(req);
    if (m == "DELETE" && !req.path.name.empty() && sub.empty()) return remove(req);
    if (m == "DELETE" && req.path.name.empty()) return remove_collection(req);
    throw ApiError(405, "MethodNotAllowed",
                   "the server does not allow this method on the requested resource");
  } catch (const ApiError& e) {
    return {e.code(),
            status_json(e, req.path.resource ? req.path.resource->plural : "", req.path.name)};
  } catch (const nlohmann::json::exception& e) {
    // A field of the wrong JSON type (a string where an object belongs): the client's fault.
    return {400, status_json(bad_request(std::string("the request body does not have the "
                                                     "expected shape: ") +
                                         e.what()),
                             req.path.resource ? req.path.resource->plural : "", req.path.name)};
  } catch (const std::invalid_argument& e) {
    return {400, status_json(bad_request(std::string("invalid value: ") + e.what()))};
  } catch (const std::exception& e) {
    ApiError internal(500, "InternalError", std::string("internal error: ") + e.what());
    return {500, status_json(internal)};
  }
}

ApiResponse RestApi::get_or_list(const ApiRequest& req) {
  const auto& r = *req.path.resource;
  const bool custom_table = r.custom && wants_table(req.accept);
  if (!req.path.name.empty()) {
    auto obj = to_client(r, store_.get(r.store_key(), req.path.ns, req.path.name));
    if (custom_table) {
      return {200,
              custom_resource_table(r, std::vector<nlohmann::json>{obj}, nlohmann::json::object(),
                                    query_value(req, "includeObject"), clock_.now())};
    }
    if (wants_table(req.accept)) {
      return {200, to_table(r, {obj}, {{"resourceVersion", meta_string(obj, "resourceVersion")}},
                            clock_.now(), query_value(req, "includeObject"))};
    }
    return {200, obj};
  }
  auto labels = parse_label_selector(query_value(req, "labelSelector"));
  auto fields = parse_field_selector_for(r.plural, query_value(req, "fieldSelector"));
  // Selected on the shared objects; only the page returned is copied.
  auto listed = store_.list_shared(r.store_key(), req.path.ns);
  std::vector<StoredObject> items;
  items.reserve(listed.items.size());
  for (auto& obj : listed.items) {
    if (matches_labels(labels, *obj) && matches_fields(fields, *obj)) {
      items.push_back(std::move(obj));
    }
  }
  std::size_t limit = 0;
  if (auto l = query_value(req, "limit"); !l.empty()) {
    try {
      limit = std::stoul(l);
    } catch (const std::exception&) {
      throw bad_request("invalid limit \"" + l + "\"");
    }
  }
  const bool as_stored = req.shared_items_ok && !custom_table && !wants_table(req.accept) &&
                         !r.custom && r.group != "events.k8s.io";  // to_client changes nothing
  if (as_stored) {
    SharedPage page =
        shared_page_of(std::move(items), listed.resource_version, limit,
                       query_value(req, "continue"), store_.oldest_resource_version());
    nlohmann::json metadata = {{"resourceVersion", std::to_string(page.resource_version)}};
    if (page.continue_token) {
      metadata["continue"] = *page.continue_token;
      metadata["remainingItemCount"] = page.remaining;
    }
    ApiResponse out{
        200,
        {{"kind", r.kind + "List"}, {"apiVersion", r.group_version()}, {"metadata", metadata}}};
    out.shared_items = std::move(page.items);
    return out;
  }
  ListPage page = page_of(items, listed.resource_version, limit, query_value(req, "continue"),
                          store_.oldest_resource_version());
  for (auto& obj : page.items) obj = to_client(r, std::move(obj));
  nlohmann::json metadata = {{"resourceVersion", std::to_string(page.resource_version)}};
  if (page.continue_token) {
    metadata["continue"] = *page.continue_token;
    metadata["remainingItemCount"] = page.remaining;
  }
  if (custom_table) {
    return {200, custom_resource_table(r, page.items, metadata, query_value(req, "includeObject"),
                                       clock_.now())};
  }
  if (wants_table(req.accept)) {
    return {200,
            to_table(r, page.items, metadata, clock_.now(), query_value(req, "includeObject"))};
  }
  nlohmann::json listed_items = nlohmann::json::array();
  listed_items.get_ref<nlohmann::json::array_t&>().reserve(page.items.size());
  for (auto& obj : page.items) listed_items.push_back(std::move(obj));  // moved, not copied
  return {200,
          {{"kind", r.kind + "List"},
           {"apiVersion", r.group_version()},
           {"metadata", metadata},
           {"items", std::move(listed_items)}}};
}

nlohmann::json RestApi::admit_controller_pod(const std::string& ns, nlohmann::json pod) {
  const ResourceInfo& r = resource_by_plural("pods");
  AdmissionAttributes a{&r, "CREATE", ns, name_of(pod), "", std::move(pod), nullptr, false};
  a.object = webhooks_.mutate(a);
  webhooks_.validate(a);
  return std::move(a.object);
}

ApiResponse RestApi::create(const ApiRequest& req) {
  const auto& r = *req.path.resource;
  if (r.namespaced && req.path.ns.empty()) {
    throw bad_request("a namespace is required to create " + r.plural);
  }
  nlohmann::json obj = decode_object_body(req.body, req.content_type);
  const bool dry = dry_run(req);
  if (r.plural == "selfsubjectaccessreviews") {
    admit_create(r, obj);
    return {201, review_self_access(std::move(obj))};
  }
  auto warnings = check_fields(r, obj, query_value(req, "fieldValidation"));
  validate_object_names(r, req.path.ns, obj);
  admit_create(r, obj);
  if (r.plural == "priorityclasses") admit_priority_class(store_, obj);
  if (r.plural == "pods") resolve_pod_priority(store_, obj);
  if (r.namespaced) {
    const std::string body_ns = namespace_of(obj);
    if (!body_ns.empty() && body_ns != req.path.ns) {
      throw bad_request("the namespace of the provided object (" + body_ns +
                        ") does not match the namespace sent on the request (" + req.path.ns + ")");
    }
    if (!dry) ensure_namespace(req.path.ns);
  }
  AdmissionAttributes a{&r, "CREATE", req.path.ns, name_of(obj), "", obj, nullptr, dry};
  obj = webhooks_.mutate(a);
  if (r.custom) admit_custom_object(r, obj);  // what the webhooks made of it is checked again
  a.object = obj;
  webhooks_.validate(a);
  if (dry) return {201, obj, std::nullopt, warnings};
  auto created = store_.create(r.store_key(), req.path.ns, to_storage(r, std::move(obj)));
  if (r.plural == "jobs") {
    created = store_.mutate(r.plural, req.path.ns, name_of(created),
                            [&](nlohmann::json& o) { admit_created(r, o); });
  }
  if (r.plural == "customresourcedefinitions") {
    serve_definition(created);
    created = store_.get(r.plural, "", name_of(created));
  }
  return {201, to_client(r, std::move(created)), std::nullopt, warnings};
}

nlohmann::json RestApi::to_storage(const ResourceInfo& r, nlohmann::json obj) const {
  if (r.group == "events.k8s.io") return events_v1_to_core_event(std::move(obj));
  return obj;
}

nlohmann::json RestApi::to_client(const ResourceInfo& r, nlohmann::json obj) const {
  if (r.group == "events.k8s.io") return core_event_to_events_v1(std::move(obj));
  if (r.custom && obj.is_object()) obj["apiVersion"] = r.group_version();
  return obj;
}

void RestApi::serve_definition(const nlohmann::json& crd) {
  auto established = store_.mutate(
      "customresourcedefinitions", "", name_of(crd),
      [&](nlohmann::json& d) { establish_definition(d, format_rfc3339(clock_.now())); });
  registry_.serve(name_of(established), definition_resources(established));
}

nlohmann::json RestApi::write_update(const ApiRequest& req, const nlohmann::json& stored,
                                     nlohmann::json next) {
  const auto& r = *req.path.resource;
  const bool dry = dry_run(req);
  const nlohmann::json current = to_client(r, stored);
  AdmissionAttributes a{&r,   "UPDATE", req.path.ns, req.path.name, req.path.subresource,
                        next, current,  dry};
  next = webhooks_.mutate(a);
  if (r.custom && !a.object.is_null() && next != a.object) admit_custom_object(r, next);
  a.object = next;
  webhooks_.validate(a);
  next = to_storage(r, std::move(next));
  if (dry) {
    // What the store would keep: the server's metadata from the stored object.
    auto& md = next["metadata"];
    for (const char* f : {"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp",
                          "resourceVersion"}) {
      if (stored["metadata"].contains(f)) md[f] = stored["metadata"][f];
    }
    return to_client(r, std::move(next));
  }
  auto written = store_.replace(r.store_key(), req.path.ns, req.path.name, std::move(next));
  if (finalized(written)) {
    // The last finalizer is gone from a deleting object: now it is deleted.
    try {
      written = store_.remove(r.store_key(), req.path.ns, req.path.name);
    } catch (const ApiError&) {
      // Removed concurrently: fine.
    }
    if (r.plural == "customresourcedefinitions") withdraw_definition(store_, registry_, written);
  } else if (r.plural == "customresourcedefinitions" && !is_status(req)) {
    serve_definition(written);
    written = store_.get(r.plural, "", req.path.name);
  }
  return to_client(r, std::move(written));
}

ApiResponse RestApi::replace(const ApiRequest& req) {
  const auto& r = *req.path.resource;
  nlohmann::json obj = decode_object_body(req.body, req.content_type);
  auto warnings = check_fields(r, obj, query_value(req, "fieldValidation"));
  auto stored = store_.get(r.store_key(), req.path.ns, req.path.name);
  admit_update(r, to_client(r, stored), obj, is_status(req));
  return {200, write_update(req, stored, std::move(obj)), std::nullopt, warnings};
}

ApiResponse RestApi::patch(const ApiRequest& req) {
  const auto& r = *req.path.resource;
  if (is_apply_patch(req.content_type)) return apply(req);
  check_patch_content_type(req.content_type);
  nlohmann::json p = parse_body(req.body);
  // Read, patch, write with the read version as precondition, and again when another writer
  // came first (as kube-apiserver's GuaranteedUpdate does): concurrent patches (labels from two
  // clients) both land, and no store lock is held while admission webhooks are called.
  for (int attempt = 0;; ++attempt) {
    auto stored = store_.get(r.store_key(), req.path.ns, req.path.name);
    const nlohmann::json current = to_client(r, stored);
    nlohmann::json next = apply_patch(current, p, req.content_type);
    auto warnings = check_fields(r, next, query_value(req, "fieldValidation"));
    const std::string want = meta_string(next, "resourceVersion");
    if (!want.empty() && want != meta_string(current, "resourceVersion")) {
      throw conflict(r.plural, req.path.name);
    }
    admit_update(r, current, next, is_status(req));
    next["metadata"]["name"] = req.path.name;
    for (const char* f : {"uid", "creationTimestamp", "resourceVersion", "namespace"}) {
      if (current["metadata"].contains(f)) next["metadata"][f] = current["metadata"][f];
    }
    try {
      return {200, write_update(req, stored, std::move(next)), std::nullopt, warnings};
    } catch (const ApiError& e) {
      if (e.reason() != "Conflict" || !want.empty() || attempt >= 20) throw;
    }
  }
}

ApiResponse RestApi::apply(const ApiRequest& req) {
  const auto& r = *req.path.resource;
  const ApplyRequest how{query_value(req, "fieldManager"), format_rfc3339(clock_.now()),
                         query_flag(req.query, "force")};
  check_apply_request(how);
  const nlohmann::json applied = parse_apply_body(req.body);
  const std::string body_name = name_of(applied);
  if (!body_name.empty() && body_name != req.path.name) {
    throw bad_request("the name of the object (" + body_name +
                      ") does not match the name on the URL (" + req.path.name + ")");
  }
  const bool dry = dry_run(req);
  if (!is_status(req) && !store_.find(r.store_key(), req.path.ns, req.path.name)) {
    // Apply creates an absent object.
    nlohmann::json obj = server_side_apply(nullptr, applied, how);
    obj["metadata"]["name"] = req.path.name;
    validate_object_names(r, req.path.ns, obj);
    admit_create(r, obj);
    if (dry) return {201, obj};
    if (r.namespaced) ensure_namespace(req.path.ns);
    auto created = store_.create(r.store_key(), req.path.ns, to_storage(r, std::move(obj)));
    if (r.plural == "jobs") {
      created = store_.mutate(r.store_key(), req.path.ns, name_of(created),
                              [&](nlohmann::json& o) { admit_created(r, o); });
    }
    return {201, to_client(r, std::move(created))};
  }
  // As patch: read, apply, write with the read version as precondition, again when another
  // writer came first. write_update runs webhooks and dry run as for any update.
  for (int attempt = 0;; ++attempt) {
    auto stored = store_.get(r.store_key(), req.path.ns, req.path.name);
    const nlohmann::json current = to_client(r, stored);
    nlohmann::json next = server_side_apply(current, applied, how);
    admit_update(r, current, next, is_status(req));
    next["metadata"]["name"] = req.path.name;
    for (const char* f : {"uid", "creationTimestamp", "resourceVersion", "namespace"}) {
      if (current["metadata"].contains(f)) next["metadata"][f] = current["metadata"][f];
    }
    try {
      return {200, write_update(req, stored, std::move(next))};
    } catch (const ApiError& e) {
      if (e.reason() != "Conflict" || attempt >= 20) throw;
    }
  }
}

ApiResponse RestApi::get_scale(const ApiRequest& req) {
  const auto& r = *req.path.resource;
  return {200, scale_of(r, to_client(r, store_.get(r.store_key(), req.path.ns, req.path.name)))};
}

ApiResponse RestApi::update_scale(const ApiRequest& req) {
  const auto& r = *req.path.resource;
  nlohmann::json body = parse_body(req.body);
  for (int attempt = 0;; ++attempt) {
    auto stored = store_.get(r.store_key(), req.path.ns, req.path.name);
    const nlohmann::json current = to_client(r, stored);
    const nlohmann::json scale =
        req.method == "PATCH" ? apply_patch(scale_of(r, current), body, req.content_type) : body;
    nlohmann::json next = with_scale(r, current, scale);
    admit_update(r, current, next, false);
    // A Scale that names a resourceVersion is a precondition: a stale one is the client's
    // 409, never retried on the newer object.
    const bool precondition = !meta_string(scale, "resourceVersion").empty();
    try {
      return {200, scale_of(r, write_update(req, stored, std::move(next)))};
    } catch (const ApiError& e) {
      if (e.reason() != "Conflict" || precondition || attempt >= 20) throw;
    }
  }
}

nlohmann::json RestApi::delete_object(const ResourceInfo& r, const std::string& ns,
                                      const std::string& name, std::optional<long> grace_seconds,
                                      bool dry_run) {
  const std::string key = r.store_key();
  auto stored = store_.get(key, ns, name);
  AdmissionAttributes a{&r, "DELETE", ns, name, "", nullptr, to_client(r, stored), dry_run};
  webhooks_.mutate(a);
  webhooks_.validate(a);
  auto mark_deleting = [&](long grace) {
    auto mark = [&](nlohmann::json& o) {
      if (!is_terminating(o)) {
        o["metadata"]["deletionTimestamp"] = format_rfc3339(clock_.now());
        o["metadata"]["deletionGracePeriodSeconds"] = grace;
      }
    };
    if (dry_run) {
      mark(stored);
      return to_client(r, stored);
    }
    return to_client(r, store_.mutate(key, ns, name, mark));
  };
  if (r.plural == "pods") {
    const std::string phase = pod_phase(stored);
    const bool running_on_node =
        !pod_node(stored).empty() && phase != "Succeeded" && phase != "Failed";
    if (running_on_node && grace_seconds.value_or(1) > 0) {
      // Graceful: the pod's kubelet sees deletionTimestamp, stops it, and the pod goes away.
      return mark_deleting(grace_seconds.value_or(30));
    }
  }
  // Finalizers hold the object: it is deleting until an update removes the last of them.
  if (has_finalizers(stored)) return mark_deleting(0);
  if (dry_run) return to_client(r, stored);
  if (r.plural == "namespaces") {
    std::set<std::string> emptied;  // one store key can serve several resources
    for (const auto* res : registry_.all()) {
      if (!res->namespaced || !emptied.insert(res->store_key()).second) continue;
      for (const auto& obj : store_.list(res->store_key(), name).items) {
        try {
          store_.remove(res->store_key(), name, name_of(obj));
        } catch (const ApiError&) {
          // Already gone: nothing to do.
        }
      }
    }
  }
  if (r.plural == "customresourcedefinitions") withdraw_definition(store_, registry_, stored);
  return to_client(r, store_.remove(key, ns, name));
}

ApiResponse RestApi::remove(const ApiRequest& req) {
  std::optional<long> grace;
  if (auto g = query_value(req, "gracePeriodSeconds"); !g.empty()) grace = std::stol(g);
  nlohmann::json opts = nlohmann::json::object();
  ApiRequest effective = req;
  if (!req.body.empty()) {
    opts = parse_body(req.body);
    if (opts.is_object() && opts.contains("gracePeriodSeconds") &&
        opts["gracePeriodSeconds"].is_number()) {
      grace = opts["gracePeriodSeconds"].get<long>();
    }
    check_delete_preconditions(
        *req.path.resource, opts,
        store_.get(req.path.resource->store_key(), req.path.ns, req.path.name));
    // DeleteOptions.dryRun: ["All"], the body form of ?dryRun=All (kubectl sends both).
    if (opts.is_object() && opts.contains("dryRun") && opts["dryRun"].is_array()) {
      for (const auto& v : opts["dryRun"]) {
        if (v.is_string()) effective.query["dryRun"] = v.get<std::string>();
      }
    }
  }
  const bool dry = dry_run(effective);
  // Owner-reference propagation (garbage_collector.h); a dry run changes no dependent either.
  const auto& r = *req.path.resource;
  switch (deletion_propagation(r, query_value(req, "propagationPolicy"), opts)) {
    case Propagation::kForeground:
      if (!dry && r.plural != "pods" && r.plural != "namespaces")
        return {200, begin_foreground_deletion(store_, r, req.path.ns, req.path.name, clock_)};
      break;
    case Propagation::kOrphan:
      if (!dry)
        orphan_dependents(store_, registry_,
                          uid_of(store_.get(r.store_key(), req.path.ns, req.path.name)));
      break;
    case Propagation::kBackground:
      break;  // the garbage collector's next pass deletes the dependents
  }
  return {200, delete_object(r, req.path.ns, req.path.name, grace, dry)};
}

ApiResponse RestApi::remove_collection(const ApiRequest& req) {
  const auto& r = *req.path.resource;
  const bool dry = dry_run(req);
  auto labels = parse_label_selector(query_value(req, "labelSelector"));
  auto fields = parse_field_selector_for(r.plural, query_value(req, "fieldSelector"));
  nlohmann::json items = nlohmann::json::array();
  for (const auto& obj : store_.list(r.store_key(), req.path.ns).items) {
    if (!matches_labels(labels, obj) || !matches_fields(fields, obj)) continue;
    try {
      items.push_back(delete_object(r, namespace_of(obj), name_of(obj), std::nullopt, dry));
    } catch (const ApiError& e) {
      if (e.code() != 404) throw;  // deleted concurrently: fine; a refusal is the answer
    }
  }
  return {200,
          {{"kind", r.kind + "List"},
           {"apiVersion", r.group_version()},
           {"metadata", nlohmann::json::object()},
           {"items", items}}};
}

}  // namespace fitscale::vcluster
