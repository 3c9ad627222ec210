// The REST layer against hostile or unusual requests, and the kube-apiserver behaviours kubectl
// and client-go rely on: Status codes, paged lists, delete preconditions, Table output, apply.
#include <gtest/gtest.h>

#include "vcluster/api_error.h"
#include "vcluster/list_pages.h"
#include "vcluster/name_validation.h"
#include "vcluster/object_meta.h"
#include "vcluster/object_store.h"
#include "vcluster/request_body.h"
#include "vcluster/rest_api.h"
#include "vcluster/tables.h"
#include "vcluster/watch_stream.h"

namespace fitscale::vcluster {
namespace {

using nlohmann::json;

class FixedClock final : public Clock {
 public:
  Time now() const override { return 1'800'000'000; }
};

class VclusterRest : public ::testing::Test {
 protected:
  VclusterRest() : store(clock, 1000), api(store, clock) {}

  ApiResponse call(const std::string& method, const std::string& path, const std::string& body = "",
                   const std::string& content_type = "application/json",
                   std::map<std::string, std::string> query = {}, const std::string& accept = "") {
    ApiRequest r;
    r.method = method;
    r.path = *parse_api_path(path);
    r.body = body;
    r.content_type = content_type;
    r.query = std::move(query);
    r.accept = accept;
    return api.handle(r);
  }
  ApiResponse create_pod(const std::string& ns, const std::string& name) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}}},
                {"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}};
    return call("POST", "/api/v1/namespaces/" + ns + "/pods", pod.dump());
  }

  static void expect_status(const ApiResponse& r, int code, const std::string& reason) {
    EXPECT_EQ(r.status, code) << r.body.dump();
    EXPECT_EQ(r.body.value("kind", ""), "Status");
    EXPECT_EQ(r.body.value("apiVersion", ""), "v1");
    EXPECT_EQ(r.body.value("status", ""), "Failure");
    EXPECT_EQ(r.body.value("reason", ""), reason);
    EXPECT_EQ(r.body.value("code", 0), code);
  }

  FixedClock clock;
  ObjectStore store;
  RestApi api;
};

TEST_F(VclusterRest, DeeplyNestedBodyIsABadRequestNotACrash) {
  std::string deep = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"deep"},"spec":{"x":)";
  for (int i = 0; i < 100000; ++i) deep += "[";
  for (int i = 0; i < 100000; ++i) deep += "]";
  deep += "}}";
  expect_status(call("POST", "/api/v1/namespaces/default/pods", deep), 400, "BadRequest");
  EXPECT_FALSE(store.find("pods", "default", "deep"));
}

TEST_F(VclusterRest, WrongTypesAndInvalidUtf8AreBadRequests) {
  expect_status(call("POST", "/api/v1/namespaces/default/pods",
                     R"({"apiVersion":"v1","kind":"Pod","metadata":"oops"})"),
                400, "BadRequest");
  expect_status(call("POST", "/api/v1/namespaces/default/pods",
                     R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":7}})"),
                400, "BadRequest");
  expect_status(call("POST", "/api/v1/namespaces/default/pods",
                     "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\xff\"}}"),
                400, "BadRequest");
}

TEST_F(VclusterRest, TextPlainBodiesAreUnsupportedMediaType) {
  const std::string pod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}})";
  expect_status(call("POST", "/api/v1/namespaces/default/pods", pod, "text/plain"), 415,
                "UnsupportedMediaType");
  create_pod("default", "p");
  expect_status(call("PATCH", "/api/v1/namespaces/default/pods/p", "{}", "text/plain"), 415,
                "UnsupportedMediaType");
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods",
                 "apiVersion: v1\nkind: Pod\nmetadata:\n  name: from-yaml\nspec:\n  containers:\n"
                 "  - name: c\n    image: i\n",
                 "application/yaml")
                .status,
            201);
}

TEST_F(VclusterRest, InvalidNamesAreRefusedAndNeverStored) {
  auto r = create_pod("default", "a/b");
  expect_status(r, 422, "Invalid");
  EXPECT_EQ(r.body["details"]["causes"][0]["field"], "metadata.name");
  expect_status(create_pod("default", "UPPER"), 422, "Invalid");
  expect_status(create_pod("default", std::string(254, 'a')), 422, "Invalid");
  expect_status(create_pod("bad\xff", "p"), 422, "Invalid");
  EXPECT_FALSE(store.find("namespaces", "", "bad\xff"));
  EXPECT_TRUE(store.list("pods").items.empty());
  // A DNS subdomain is a valid pod name; a namespace must be a DNS label.
  EXPECT_EQ(create_pod("default", "web.v1-0").status, 201);
  expect_status(call("POST", "/api/v1/namespaces",
                     R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a.b"}})"),
                422, "Invalid");
  EXPECT_FALSE(dns1123_label_error("team-a"));
  EXPECT_TRUE(dns1123_label_error(std::string(64, 'a')));
  EXPECT_TRUE(dns1123_subdomain_error("-a"));
}

TEST_F(VclusterRest, SharedListItemsAreThePagesItems) {
  for (int i = 0; i < 7; ++i) ASSERT_EQ(create_pod("default", "s" + std::to_string(i)).status, 201);
  auto list = [&](bool shared, const std::map<std::string, std::string>& query) {
    ApiRequest r;
    r.method = "GET";
    r.path = *parse_api_path("/api/v1/namespaces/default/pods");
    r.query = query;
    r.shared_items_ok = shared;
    return api.handle(r);
  };
  auto copied = list(false, {{"limit", "3"}});
  auto shared = list(true, {{"limit", "3"}});
  ASSERT_TRUE(shared.shared_items);
  EXPECT_FALSE(shared.body.contains("items"));
  ASSERT_EQ(shared.shared_items->size(), 3u);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(*(*shared.shared_items)[i], copied.body["items"][i]);
  EXPECT_EQ(shared.body["metadata"], copied.body["metadata"]);
  auto next = list(true, {{"limit", "3"}, {"continue", shared.body["metadata"]["continue"]}});
  ASSERT_EQ(next.shared_items->size(), 3u);
  EXPECT_EQ(name_of(*next.shared_items->front()), "s3");
  EXPECT_EQ(next.body["metadata"]["remainingItemCount"], 1);
  // Tables are built as before.
  auto table = [&] {
    ApiRequest r;
    r.method = "GET";
    r.path = *parse_api_path("/api/v1/namespaces/default/pods");
    r.accept = "application/json;as=Table;g=meta.k8s.io;v=v1";
    r.shared_items_ok = true;
    return api.handle(r);
  }();
  EXPECT_FALSE(table.shared_items);
  EXPECT_EQ(table.body["kind"], "Table");
}

TEST_F(VclusterRest, PagesNeverSkipAnObjectThatExistedThroughout) {
  for (int i = 0; i < 10; ++i) create_pod("default", "p" + std::to_string(i));
  auto first = call("GET", "/api/v1/namespaces/default/pods", "", "", {{"limit", "4"}});
  ASSERT_EQ(first.body["items"].size(), 4u);
  const std::string token = first.body["metadata"]["continue"];
  const std::string rv = first.body["metadata"]["resourceVersion"];
  EXPECT_EQ(first.body["metadata"]["remainingItemCount"], 6);
  // Deleting pods already returned used to shift the offset past untouched ones.
  for (int i = 0; i < 3; ++i) {
    call("DELETE", "/api/v1/namespaces/default/pods/p" + std::to_string(i), "", "",
         {{"gracePeriodSeconds", "0"}});
  }
  std::vector<std::string> names;
  for (const auto& p : first.body["items"]) names.push_back(p["metadata"]["name"]);
  std::string next = token;
  while (!next.empty()) {
    auto page = call("GET", "/api/v1/namespaces/default/pods", "", "",
                     {{"limit", "4"}, {"continue", next}});
    ASSERT_EQ(page.status, 200) << page.body.dump();
    EXPECT_EQ(page.body["metadata"]["resourceVersion"], rv);
    for (const auto& p : page.body["items"]) names.push_back(p["metadata"]["name"]);
    next = page.body["metadata"].value("continue", "");
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"}));
  expect_status(call("GET", "/api/v1/namespaces/default/pods", "", "", {{"continue", "garbage!"}}),
                400, "BadRequest");
}

TEST(VclusterListPages, TooOldContinueIsExpired) {
  const std::string token = encode_continue({5, "default/a"});
  EXPECT_EQ(decode_continue(token).start_after, "default/a");
  try {
    page_of({}, 100, 10, token, 50);
    FAIL() << "expected 410";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 410);
    EXPECT_EQ(e.reason(), "Expired");
  }
}

TEST_F(VclusterRest, DeletePreconditions) {
  auto pod = create_pod("default", "p").body;
  auto r = call("DELETE", "/api/v1/namespaces/default/pods/p",
                R"({"preconditions":{"uid":"not-the-uid"}})");
  expect_status(r, 409, "Conflict");
  r = call("DELETE", "/api/v1/namespaces/default/pods/p",
           R"({"preconditions":{"resourceVersion":"1"}})");
  expect_status(r, 409, "Conflict");
  EXPECT_TRUE(store.find("pods", "default", "p"));
  json ok = {
      {"preconditions",
       {{"uid", pod["metadata"]["uid"]}, {"resourceVersion", pod["metadata"]["resourceVersion"]}}}};
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/default/pods/p", ok.dump()).status, 200);
  EXPECT_FALSE(store.find("pods", "default", "p"));
}

TEST_F(VclusterRest, TableOutputHasKubectlsPodColumns) {
  create_pod("default", "p");
  auto r = call("GET", "/api/v1/namespaces/default/pods", "", "", {},
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.body["kind"], "Table");
  std::vector<std::string> cols;
  for (const auto& c : r.body["columnDefinitions"]) {
    if (c["priority"] == 0) cols.push_back(c["name"]);
  }
  EXPECT_EQ(cols, (std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age"}));
  ASSERT_EQ(r.body["rows"].size(), 1u);
  EXPECT_EQ(r.body["rows"][0]["cells"][0], "p");
  EXPECT_EQ(r.body["rows"][0]["cells"][1], "0/1");
  EXPECT_EQ(r.body["rows"][0]["cells"][2], "Pending");
  EXPECT_EQ(r.body["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  r = call("GET", "/api/v1/nodes", "", "", {}, "application/json;as=Table;g=meta.k8s.io;v=v1");
  EXPECT_EQ(r.body["columnDefinitions"][1]["name"], "Status");
  EXPECT_FALSE(wants_table("application/json"));
  EXPECT_EQ(human_duration(45), "45s");
  EXPECT_EQ(human_duration(330), "5m30s");
  EXPECT_EQ(human_duration(3 * 3600 + 60), "3h1m");
  EXPECT_EQ(human_duration(2 * 86400 + 5 * 3600), "2d5h");
}

TEST_F(VclusterRest, ServerSideApplyCreatesThenMerges) {
  const std::string body = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"sa"},
    "spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}})";
  auto r = call("PATCH", "/api/v1/namespaces/default/pods/sa", body, "application/apply-patch+yaml",
                {{"fieldManager", "kubectl"}});
  ASSERT_EQ(r.status, 201) << r.body.dump();
  EXPECT_EQ(r.body["metadata"]["managedFields"][0]["manager"], "kubectl");
  r = call("PATCH", "/api/v1/namespaces/default/pods/sa",
           "apiVersion: v1\nkind: Pod\nmetadata:\n  name: sa\nspec:\n  containers:\n  - name: a\n"
           "    image: a:2\n",
           "application/apply-patch+yaml", {{"fieldManager", "kubectl"}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  ASSERT_EQ(r.body["spec"]["containers"].size(), 2u);
  EXPECT_EQ(r.body["spec"]["containers"][0]["image"], "a:2");
  expect_status(
      call("PATCH", "/api/v1/namespaces/default/pods/sa", body, "application/apply-patch+yaml"),
      400, "BadRequest");
}

TEST_F(VclusterRest, ServerSideApplyConflictsBetweenManagers) {
  const std::string path = "/apis/apps/v1/namespaces/default/deployments/web";
  auto deployment = [](int replicas, const std::string& image) {
    return json{
        {"apiVersion", "apps/v1"},
        {"kind", "Deployment"},
        {"metadata", {{"name", "web"}}},
        {"spec",
         {{"replicas", replicas},
          {"template", {{"spec", {{"containers", {{{"name", "app"}, {"image", image}}}}}}}}}}}
        .dump();
  };
  const std::string ssa = "application/apply-patch+yaml";
  ASSERT_EQ(call("PATCH", path, deployment(2, "app:1"), ssa, {{"fieldManager", "alice"}}).status,
            201);
  // The same values: bob becomes a co-owner, no conflict.
  auto r = call("PATCH", path, deployment(2, "app:1"), ssa, {{"fieldManager", "bob"}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  // Bob changes two of alice's fields: 409 naming both, nothing written.
  r = call("PATCH", path, deployment(5, "app:2"), ssa, {{"fieldManager", "bob"}});
  expect_status(r, 409, "Conflict");
  EXPECT_EQ(r.body["message"],
            "Apply failed with 2 conflicts: conflicts with \"alice\":\n- .spec.replicas\n"
            "- .spec.template.spec.containers[name=\"app\"].image");
  ASSERT_EQ(r.body["details"]["causes"].size(), 2u) << r.body.dump();
  EXPECT_EQ(r.body["details"]["causes"][0]["reason"], "FieldManagerConflict");
  EXPECT_EQ(r.body["details"]["causes"][0]["field"], ".spec.replicas");
  EXPECT_EQ(r.body["details"]["causes"][0]["message"], "conflict with \"alice\"");
  auto stored = call("GET", path);
  EXPECT_EQ(stored.body["spec"]["replicas"], 2);
  // Dry run with force answers the forced object and stores nothing.
  r = call("PATCH", path, deployment(5, "app:1"), ssa,
           {{"fieldManager", "bob"}, {"force", "true"}, {"dryRun", "All"}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(r.body["spec"]["replicas"], 5);
  EXPECT_EQ(call("GET", path).body["spec"]["replicas"], 2);
  // One conflict is one line.
  r = call("PATCH", path, deployment(5, "app:1"), ssa, {{"fieldManager", "bob"}});
  expect_status(r, 409, "Conflict");
  EXPECT_EQ(r.body["message"],
            "Apply failed with 1 conflict: conflict with \"alice\": .spec.replicas");
  // force=true takes the field: bob owns replicas alone, alice keeps the image.
  r = call("PATCH", path, deployment(5, "app:1"), ssa,
           {{"fieldManager", "bob"}, {"force", "true"}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(r.body["spec"]["replicas"], 5);
  json alice;
  for (const auto& m : r.body["metadata"]["managedFields"]) {
    if (m["manager"] == "alice") alice = m["fieldsV1"];
  }
  ASSERT_FALSE(alice.is_null()) << r.body.dump();
  EXPECT_FALSE(alice["f:spec"].contains("f:replicas")) << alice.dump();
  EXPECT_TRUE(alice["f:spec"].contains("f:template")) << alice.dump();
  // Now alice is the one who conflicts, with bob.
  r = call("PATCH", path, deployment(2, "app:1"), ssa, {{"fieldManager", "alice"}});
  expect_status(r, 409, "Conflict");
  EXPECT_EQ(r.body["details"]["causes"][0]["message"], "conflict with \"bob\"");
}

TEST(VclusterWatchOptions, WatchListCombinationsAsKubeApiserver) {
  WatchRequest w;
  EXPECT_THROW(
      read_watch_options({{"sendInitialEvents", "true"}, {"allowWatchBookmarks", "true"}}, w),
      ApiError);
  EXPECT_THROW(read_watch_options(
                   {{"sendInitialEvents", "true"}, {"resourceVersionMatch", "NotOlderThan"}}, w),
               ApiError);
  EXPECT_THROW(read_watch_options({{"resourceVersionMatch", "NotOlderThan"}}, w), ApiError);
  try {
    read_watch_options({{"resourceVersionMatch", "NotOlderThan"}}, w);
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 422);
  }
  read_watch_options({{"sendInitialEvents", "true"},
                      {"resourceVersionMatch", "NotOlderThan"},
                      {"allowWatchBookmarks", "true"}},
                     w);
  EXPECT_TRUE(w.send_initial_events.value_or(false));
}

TEST(VclusterWatchStream, WatchListEndsInitialEventsWithABookmark) {
  FixedClock clock;
  ObjectStore store(clock, 100);
  store.create("pods", "default", {{"metadata", {{"name", "a"}}}});
  store.create("pods", "default", {{"metadata", {{"name", "b"}}}});
  store.close();
  WatchRequest w;
  w.resource = &resource_by_plural("pods");
  read_watch_options({{"sendInitialEvents", "true"},
                      {"resourceVersionMatch", "NotOlderThan"},
                      {"allowWatchBookmarks", "true"},
                      {"resourceVersion", "5"}},
                     w);
  std::vector<std::string> types;
  json last;
  stream_watch(store, w, [&](const std::string& line) {
    last = json::parse(line);
    types.push_back(last["type"]);
    return true;
  });
  EXPECT_EQ(types, (std::vector<std::string>{"ADDED", "ADDED", "BOOKMARK"}));
  EXPECT_EQ(last["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
}

// Protobuf, hand-encoded the way kubectl's typed client encodes `kubectl create configmap`.
std::string pb_len(int field, const std::string& bytes) {
  std::string out(1, static_cast<char>((field << 3) | 2));
  std::size_t n = bytes.size();
  while (n >= 0x80) {
    out += static_cast<char>((n & 0x7f) | 0x80);
    n >>= 7;
  }
  out += static_cast<char>(n);
  return out + bytes;
}

TEST_F(VclusterRest, ProtobufConfigMapAndDeploymentAreDecoded) {
  const std::string meta = pb_len(1, pb_len(1, "cm-pb"));
  const std::string data = pb_len(2, pb_len(1, "k") + pb_len(2, "v"));
  const std::string body = std::string("k8s\0", 4) +
                           pb_len(1, pb_len(1, "v1") + pb_len(2, "ConfigMap")) +
                           pb_len(2, meta + data);
  auto r = call("POST", "/api/v1/namespaces/default/configmaps", body,
                "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(r.status, 201) << r.body.dump();
  EXPECT_EQ(r.body["data"]["k"], "v");
  EXPECT_EQ(r.body["metadata"]["name"], "cm-pb");

  const std::string container = pb_len(1, "busybox") + pb_len(2, "busybox");
  const std::string pod_spec = pb_len(2, container);
  const std::string tmpl =
      pb_len(1, pb_len(11, pb_len(1, "app") + pb_len(2, "d"))) + pb_len(2, pod_spec);
  const std::string spec = std::string("\x08\x02", 2) +  // replicas: 2
                           pb_len(2, pb_len(1, pb_len(1, "app") + pb_len(2, "d"))) +
                           pb_len(3, tmpl);
  const std::string deploy = std::string("k8s\0", 4) +
                             pb_len(1, pb_len(1, "apps/v1") + pb_len(2, "Deployment")) +
                             pb_len(2, pb_len(1, pb_len(1, "d")) + pb_len(2, spec));
  r = call("POST", "/apis/apps/v1/namespaces/default/deployments", deploy,
           "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(r.status, 201) << r.body.dump();
  EXPECT_EQ(r.body["spec"]["replicas"], 2);
  EXPECT_EQ(r.body["spec"]["selector"]["matchLabels"]["app"], "d");
  EXPECT_EQ(r.body["spec"]["template"]["spec"]["containers"][0]["image"], "busybox");

  const std::string lease = std::string("k8s\0", 4) +
                            pb_len(1, pb_len(1, "coordination.k8s.io/v1") + pb_len(2, "Lease")) +
                            pb_len(2, meta);
  expect_status(call("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", lease,
                     "application/vnd.kubernetes.protobuf"),
                415, "UnsupportedMediaType");
}

TEST(VclusterRequestBody, LimitsAndMediaTypes) {
  EXPECT_EQ(media_type("Application/JSON; charset=utf-8"), "application/json");
  std::string ok = "{\"a\":";
  for (int i = 0; i < 100; ++i) ok += "[";
  for (int i = 0; i < 100; ++i) ok += "]";
  ok += ",\"s\":\"[[[[\"}";
  EXPECT_NO_THROW(parse_json_body(ok));
  EXPECT_THROW(decode_object_body("{}", "text/plain"), ApiError);
  EXPECT_NO_THROW(decode_object_body("{}", ""));
}

}  // namespace
}  // namespace fitscale::vcluster
