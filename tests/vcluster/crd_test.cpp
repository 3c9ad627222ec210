// CustomResourceDefinitions, admission webhooks, dry run, generation and finalizers, driven
// through RestApi as kubectl would (no HTTP), with a fake webhook transport.
#include <gtest/gtest.h>

#include "kube/kubeconfig.h"
#include "model/base64.h"
#include "vcluster/custom_table.h"
#include "vcluster/discovery.h"
#include "vcluster/garbage_collector.h"
#include "vcluster/openapi.h"
#include "vcluster/rest_api.h"
#include "vcluster/schema_validation.h"

namespace fitscale::vcluster {
namespace {

using nlohmann::json;

class ManualClock final : public Clock {
 public:
  Time now() const override { return t; }
  Time t = 1'800'000'000;
};

json widget_crd() {
  return json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.io"},
    "spec": {"group": "example.io", "scope": "Namespaced",
      "names": {"plural": "widgets", "kind": "Widget", "shortNames": ["wd"], "categories": ["all"]},
      "versions": [
        {"name": "v1", "served": true, "storage": true,
         "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                  "statusReplicasPath": ".status.replicas"}},
         "additionalPrinterColumns": [
           {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
           {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"},
           {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}],
         "schema": {"openAPIV3Schema": {"type": "object", "properties": {
           "spec": {"type": "object", "required": ["size"], "properties": {
             "size": {"type": "string", "enum": ["small", "large"]},
             "replicas": {"type": "integer", "minimum": 0, "maximum": 10},
             "name": {"type": "string", "pattern": "^[a-z]+$"},
             "mode": {"type": "string", "default": "auto"},
             "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
           "status": {"type": "object", "properties": {
             "replicas": {"type": "integer"},
             "conditions": {"type": "array", "items": {"type": "object",
               "x-kubernetes-preserve-unknown-fields": true}}}}}}}},
        {"name": "v1beta1", "served": true, "storage": false,
         "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})");
}

json widget(const std::string& name, json spec) {
  return {{"apiVersion", "example.io/v1"},
          {"kind", "Widget"},
          {"metadata", {{"name", name}}},
          {"spec", std::move(spec)}};
}

struct Posted {
  std::string url;
  std::string ca;
  json review;
};

class CrdApi : public ::testing::Test {
 protected:
  CrdApi()
      : store(clock, 1000),
        api(store, clock,
            [this](const std::string& url, const std::string& ca, const std::string& body, long) {
              posted.push_back({url, ca, json::parse(body)});
              return answer(posted.back().review);
            }) {}

  ApiResponse call(const std::string& method, const std::string& path, const json& body = nullptr,
                   std::map<std::string, std::string> query = {},
                   const std::string& content_type = "application/json",
                   const std::string& accept = "") {
    ApiRequest r;
    r.method = method;
    r.path = *parse_api_path(api.registry(), path);
    if (!body.is_null()) r.body = body.dump();
    r.query = std::move(query);
    r.content_type = content_type;
    r.accept = accept;
    return api.handle(r);
  }

  void install_widgets() {
    auto r = call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widget_crd());
    ASSERT_EQ(r.status, 201) << r.body.dump();
  }

  ManualClock clock;
  ObjectStore store;
  std::vector<Posted> posted;
  std::function<HttpResponse(const json&)> answer = [](const json&) {
    return HttpResponse{0, "", "connection refused", false};
  };
  RestApi api;
};

TEST(QueryFlag, ReadsBooleansAsApimachineryDoes) {
  for (const char* yes : {"true", "True", "1", "", "yes"}) {
    EXPECT_TRUE(query_flag({{"watch", yes}}, "watch")) << yes;
  }
  for (const char* no : {"false", "FALSE", "0"}) EXPECT_FALSE(query_flag({{"watch", no}}, "watch"));
  EXPECT_FALSE(query_flag({}, "watch"));
}

TEST(Versions, KubernetesPriorityOrder) {
  EXPECT_TRUE(version_precedes("v1", "v1beta1"));
  EXPECT_TRUE(version_precedes("v2", "v1"));
  EXPECT_TRUE(version_precedes("v1beta2", "v1beta1"));
  EXPECT_TRUE(version_precedes("v1beta1", "v1alpha1"));
  EXPECT_TRUE(version_precedes("v1alpha1", "foo"));
}

TEST(SchemaValidation, PrunesDefaultsAndNamesEachBadField) {
  auto schema = widget_crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
  json obj = widget("w", {{"size", "huge"},
                          {"replicas", 11},
                          {"name", "A1"},
                          {"junk", 1},
                          {"free", {{"anything", {{"goes", 1}}}}}});
  obj["metadata"]["labels"] = {{"a", "b"}};
  auto errors = validate_custom_object(schema, obj);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].field, "spec.name");
  EXPECT_EQ(errors[0].message,
            "spec.name: Invalid value: \"A1\": spec.name in body should match '^[a-z]+$'");
  EXPECT_EQ(errors[1].message,
            "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or "
            "equal to 10");
  EXPECT_EQ(errors[2].message,
            "spec.size: Unsupported value: \"huge\": supported values: \"small\", \"large\"");
  EXPECT_FALSE(obj["spec"].contains("junk"));             // pruned
  EXPECT_EQ(obj["spec"]["free"]["anything"]["goes"], 1);  // preserved
  EXPECT_EQ(obj["spec"]["mode"], "auto");                 // defaulted
  EXPECT_EQ(obj["metadata"]["labels"]["a"], "b");         // the server's, untouched

  json typed = widget("w", {{"replicas", "three"}});
  errors = validate_custom_object(schema, typed);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].message,
            "spec.replicas: Invalid value: \"three\": spec.replicas in body must be of type "
            "integer: \"string\"");
  EXPECT_EQ(errors[1].message, "spec.size: Required value");
}

TEST_F(CrdApi, DefinitionIsEstablishedAndServed) {
  install_widgets();
  auto crd = store.get("customresourcedefinitions", "", "widgets.example.io");
  ASSERT_EQ(crd["status"]["conditions"].size(), 2u);
  EXPECT_EQ(crd["status"]["conditions"][1]["type"], "Established");
  EXPECT_EQ(crd["status"]["conditions"][1]["status"], "True");
  EXPECT_EQ(crd["spec"]["names"]["singular"], "widget");
  EXPECT_EQ(crd["spec"]["names"]["listKind"], "WidgetList");

  auto group = api_group(api.registry(), "example.io");
  ASSERT_TRUE(group);
  EXPECT_EQ((*group)["preferredVersion"]["version"], "v1");
  auto list = api_resource_list(api.registry(), "example.io", "v1");
  ASSERT_TRUE(list);
  EXPECT_EQ((*list)["resources"][0]["name"], "widgets");
  EXPECT_EQ((*list)["resources"][0]["shortNames"][0], "wd");
  EXPECT_EQ((*list)["resources"][0]["categories"][0], "all");
  EXPECT_EQ((*list)["resources"][2]["name"], "widgets/scale");

  auto created = call("POST", "/apis/example.io/v1/namespaces/default/widgets",
                      widget("w1", {{"size", "small"}, {"replicas", 2}}));
  ASSERT_EQ(created.status, 201) << created.body.dump();
  // Read through the other served version: same object, that version's apiVersion.
  auto beta = call("GET", "/apis/example.io/v1beta1/namespaces/default/widgets/w1");
  ASSERT_EQ(beta.status, 200);
  EXPECT_EQ(beta.body["apiVersion"], "example.io/v1beta1");
  EXPECT_EQ(beta.body["spec"]["replicas"], 2);

  // Deleting the definition withdraws the resource and its objects.
  ASSERT_EQ(
      call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.io")
          .status,
      200);
  EXPECT_FALSE(api.registry().find("example.io", "v1", "widgets"));
  EXPECT_TRUE(store.list("widgets.example.io").items.empty());
}

TEST_F(CrdApi, OpenApiPublishesTheCustomSchema) {
  install_widgets();
  auto index = json::parse(openapi_answer(api.registry(), "/openapi/v3", "").body);
  ASSERT_TRUE(index["paths"].contains("apis/example.io/v1")) << index.dump();
  auto doc = json::parse(openapi_answer(api.registry(), "/openapi/v3/apis/example.io/v1", "").body);
  const auto& schema = doc["components"]["schemas"]["io.example.v1.Widget"];
  EXPECT_EQ(schema["x-kubernetes-group-version-kind"][0]["kind"], "Widget");
  EXPECT_EQ(schema["properties"]["spec"]["properties"]["size"]["enum"][1], "large");
  EXPECT_EQ(schema["properties"]["metadata"]["$ref"],
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  const auto& patch = doc["paths"]["/apis/example.io/v1/namespaces/{namespace}/widgets/{name}"];
  EXPECT_EQ(patch["patch"]["requestBody"]["content"].size(), 3u);
  EXPECT_EQ(patch["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/io.example.v1.Widget");
  auto v2 = json::parse(openapi_answer(api.registry(), "/openapi/v2", "application/json").body);
  EXPECT_EQ(v2["definitions"]["io.example.v1.Widget"]["properties"]["metadata"]["$ref"],
            "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  // Withdrawn with its definition.
  call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.io");
  EXPECT_EQ(openapi_answer(api.registry(), "/openapi/v3/apis/example.io/v1", "").status, 404);
}

TEST_F(CrdApi, GarbageCollectionFollowsCustomOwners) {
  install_widgets();
  auto owner = call("POST", "/apis/example.io/v1/namespaces/default/widgets",
                    widget("w1", {{"size", "small"}}));
  ASSERT_EQ(owner.status, 201) << owner.body.dump();
  auto owned_by = [&](const std::string& name, const json& o) {
    return json{{"apiVersion", "v1"},
                {"kind", "ConfigMap"},
                {"metadata",
                 {{"name", name},
                  {"ownerReferences",
                   {{{"apiVersion", "example.io/v1"},
                     {"kind", "Widget"},
                     {"name", o["metadata"]["name"]},
                     {"uid", o["metadata"]["uid"]}}}}}}};
  };
  ASSERT_EQ(
      call("POST", "/api/v1/namespaces/default/configmaps", owned_by("cm1", owner.body)).status,
      201);
  // A custom object owned by another custom object goes too.
  ASSERT_EQ(call("POST", "/apis/example.io/v1/namespaces/default/widgets",
                 [&] {
                   json w = widget("w2", {{"size", "large"}});
                   w["metadata"]["ownerReferences"] =
                       owned_by("x", owner.body)["metadata"]["ownerReferences"];
                   return w;
                 }())
                .status,
            201);
  run_garbage_collector(store, api);
  EXPECT_TRUE(store.find("configmaps", "default", "cm1")) << "an owner that exists keeps it";
  ASSERT_EQ(call("DELETE", "/apis/example.io/v1/namespaces/default/widgets/w1").status, 200);
  run_garbage_collector(store, api);
  EXPECT_FALSE(store.find("configmaps", "default", "cm1"));
  EXPECT_FALSE(store.find("widgets.example.io", "default", "w2"));
  // Orphan through a custom owner: the reference goes, the dependent stays.
  owner = call("POST", "/apis/example.io/v1/namespaces/default/widgets",
               widget("w3", {{"size", "small"}}));
  ASSERT_EQ(
      call("POST", "/api/v1/namespaces/default/configmaps", owned_by("cm3", owner.body)).status,
      201);
  ASSERT_EQ(call("DELETE", "/apis/example.io/v1/namespaces/default/widgets/w3",
                 json{{"propagationPolicy", "Orphan"}})
                .status,
            200);
  run_garbage_collector(store, api);
  auto cm3 = store.find("configmaps", "default", "cm3");
  ASSERT_TRUE(cm3);
  EXPECT_FALSE((*cm3)["metadata"].contains("ownerReferences")) << cm3->dump();
}

TEST_F(CrdApi, BadDefinitionIs422) {
  auto crd = widget_crd();
  crd["metadata"]["name"] = "gadgets.example.io";
  crd["spec"]["versions"][1]["storage"] = true;
  auto r = call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
  EXPECT_EQ(r.status, 422);
  const std::string message = r.body["message"];
  EXPECT_NE(message.find("metadata.name"), std::string::npos) << message;
  EXPECT_NE(message.find("exactly one version marked as storage"), std::string::npos) << message;
}

TEST_F(CrdApi, InvalidObjectGets422NamingTheField) {
  install_widgets();
  auto r = call("POST", "/apis/example.io/v1/namespaces/default/widgets",
                widget("w1", {{"size", "small"}, {"replicas", -1}}));
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body["reason"], "Invalid");
  EXPECT_EQ(r.body["message"],
            "Widget.example.io \"w1\" is invalid: spec.replicas: Invalid value: -1: "
            "spec.replicas in body should be greater than or equal to 0");
  EXPECT_EQ(r.body["details"]["causes"][0]["field"], "spec.replicas");
  EXPECT_EQ(r.body["details"]["group"], "example.io");
}

TEST_F(CrdApi, GenerationStatusAndScale) {
  install_widgets();
  const std::string path = "/apis/example.io/v1/namespaces/default/widgets/w1";
  ASSERT_EQ(call("POST", "/apis/example.io/v1/namespaces/default/widgets",
                 widget("w1", {{"size", "small"}, {"replicas", 1}}))
                .status,
            201);
  auto patched =
      call("PATCH", path, {{"spec", {{"size", "large"}}}}, {}, "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body.dump();
  EXPECT_EQ(patched.body["metadata"]["generation"], 2);
  // Labels are metadata: no new generation.
  patched = call("PATCH", path, {{"metadata", {{"labels", {{"a", "b"}}}}}}, {},
                 "application/merge-patch+json");
  EXPECT_EQ(patched.body["metadata"]["generation"], 2);
  // Status through the status subresource; the main resource ignores status.
  auto st = call(
      "PATCH", path + "/status",
      {{"status", {{"replicas", 1}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}},
      {}, "application/merge-patch+json");
  ASSERT_EQ(st.status, 200) << st.body.dump();
  EXPECT_EQ(st.body["metadata"]["generation"], 2);
  patched =
      call("PATCH", path, {{"status", {{"replicas", 7}}}}, {}, "application/merge-patch+json");
  EXPECT_EQ(patched.body["status"]["replicas"], 1);

  auto scale = call("GET", path + "/scale");
  ASSERT_EQ(scale.status, 200);
  EXPECT_EQ(scale.body["kind"], "Scale");
  EXPECT_EQ(scale.body["spec"]["replicas"], 1);
  EXPECT_EQ(scale.body["status"]["replicas"], 1);
  auto scaled = call("PATCH", path + "/scale", {{"spec", {{"replicas", 4}}}}, {},
                     "application/merge-patch+json");
  ASSERT_EQ(scaled.status, 200) << scaled.body.dump();
  EXPECT_EQ(store.get("widgets.example.io", "default", "w1")["spec"]["replicas"], 4);
  // The schema still holds through scale.
  EXPECT_EQ(call("PATCH", path + "/scale", {{"spec", {{"replicas", 40}}}}, {},
                 "application/merge-patch+json")
                .status,
            422);

  clock.t += 300;
  auto table = call("GET", "/apis/example.io/v1/namespaces/default/widgets", nullptr, {},
                    "application/json", "application/json;as=Table;v=v1;g=meta.k8s.io");
  ASSERT_EQ(table.body["kind"], "Table") << table.body.dump();
  ASSERT_EQ(table.body["columnDefinitions"].size(), 4u);
  EXPECT_EQ(table.body["columnDefinitions"][1]["name"], "Replicas");
  EXPECT_EQ(table.body["rows"][0]["cells"], json({"w1", 4, "True", "5m"}));
  EXPECT_EQ(table.body["rows"][0]["object"]["kind"], "PartialObjectMetadata");
}

TEST_F(CrdApi, DryRunStoresNothingOnAnyVerb) {
  const std::map<std::string, std::string> dry = {{"dryRun", "All"}};
  ASSERT_EQ(call("POST", "/api/v1/namespaces", {{"metadata", {{"name", "x"}}}}).status, 201);
  ASSERT_EQ(call("POST", "/api/v1/namespaces/x/configmaps",
                 {{"metadata", {{"name", "c"}}}, {"data", {{"k", "v"}}}})
                .status,
            201);
  const auto before = store.resource_version();
  auto put = call("PUT", "/api/v1/namespaces/x/configmaps/c",
                  {{"metadata", {{"name", "c"}}}, {"data", {{"k", "changed"}}}}, dry);
  EXPECT_EQ(put.status, 200);
  EXPECT_EQ(put.body["data"]["k"], "changed");
  auto patch = call("PATCH", "/api/v1/namespaces/x/configmaps/c", {{"data", {{"k", "p"}}}}, dry,
                    "application/merge-patch+json");
  EXPECT_EQ(patch.body["data"]["k"], "p");
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/x/configmaps/c", nullptr, dry).status, 200);
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/x/configmaps", nullptr, dry).body["items"].size(),
            1u);
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/x", nullptr, dry).status, 200);
  EXPECT_EQ(store.resource_version(), before);
  EXPECT_EQ(store.get("configmaps", "x", "c")["data"]["k"], "v");
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/x", nullptr, {{"dryRun", "Some"}}).status, 400);
}

TEST_F(CrdApi, FinalizersHoldDeletion) {
  json cm = {{"metadata", {{"name", "c"}, {"finalizers", {"example.io/hold"}}}}};
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/configmaps", cm).status, 201);
  auto del = call("DELETE", "/api/v1/namespaces/default/configmaps/c");
  EXPECT_EQ(del.status, 200);
  auto held = store.get("configmaps", "default", "c");
  EXPECT_TRUE(held["metadata"].contains("deletionTimestamp"));
  // No new finalizers on a deleting object.
  EXPECT_EQ(call("PATCH", "/api/v1/namespaces/default/configmaps/c",
                 {{"metadata", {{"finalizers", {"example.io/hold", "other"}}}}}, {},
                 "application/merge-patch+json")
                .status,
            422);
  EXPECT_EQ(call("PATCH", "/api/v1/namespaces/default/configmaps/c",
                 {{"metadata", {{"finalizers", nullptr}}}}, {}, "application/merge-patch+json")
                .status,
            200);
  EXPECT_FALSE(store.find("configmaps", "default", "c"));
}

TEST_F(CrdApi, NodeHasSpecSecretStringDataEventsV1) {
  ASSERT_EQ(call("POST", "/api/v1/nodes", {{"metadata", {{"name", "n1"}}}}).status, 201);
  EXPECT_TRUE(store.get("nodes", "", "n1")["spec"].is_object());

  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/secrets",
                 {{"metadata", {{"name", "s"}}}, {"stringData", {{"k", "hi"}}}})
                .status,
            201);
  auto secret = store.get("secrets", "default", "s");
  EXPECT_EQ(secret["data"]["k"], base64_encode("hi"));
  EXPECT_FALSE(secret.contains("stringData"));
  EXPECT_EQ(secret["type"], "Opaque");

  auto ev = call("POST", "/apis/events.k8s.io/v1/namespaces/default/events",
                 {{"apiVersion", "events.k8s.io/v1"},
                  {"kind", "Event"},
                  {"metadata", {{"name", "e"}}},
                  {"regarding", {{"kind", "Pod"}, {"name", "p"}}},
                  {"note", "hello"},
                  {"reportingController", "me"}});
  ASSERT_EQ(ev.status, 201) << ev.body.dump();
  EXPECT_EQ(ev.body["note"], "hello");
  auto core = call("GET", "/api/v1/namespaces/default/events/e");
  EXPECT_EQ(core.body["message"], "hello");
  EXPECT_EQ(core.body["involvedObject"]["name"], "p");
  EXPECT_EQ(core.body["reportingComponent"], "me");
  EXPECT_EQ(core.body["apiVersion"], "v1");

  auto review =
      call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
           {{"spec", {{"resourceAttributes", {{"verb", "create"}, {"resource", "pods"}}}}}});
  EXPECT_EQ(review.status, 201);
  EXPECT_EQ(review.body["status"]["allowed"], true);
}

json webhook_config(const std::string& kind, json hook) {
  return {{"apiVersion", "admissionregistration.k8s.io/v1"},
          {"kind", kind},
          {"metadata", {{"name", "cfg"}}},
          {"webhooks", {hook}}};
}

json pod_hook(const std::string& name) {
  return {
      {"name", name},
      {"admissionReviewVersions", {"v1"}},
      {"sideEffects", "None"},
      {"clientConfig", {{"url", "https://127.0.0.1:9/mutate"}, {"caBundle", base64_encode("PEM")}}},
      {"rules",
       {{{"operations", {"CREATE"}},
         {"apiGroups", {""}},
         {"apiVersions", {"v1"}},
         {"resources", {"pods"}}}}}};
}

json pod(const std::string& name, json labels = json::object()) {
  return {{"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
}

HttpResponse review_answer(const json& review, json response) {
  response["uid"] = review["request"]["uid"];
  return {200,
          json{{"apiVersion", "admission.k8s.io/v1"},
               {"kind", "AdmissionReview"},
               {"response", response}}
              .dump(),
          "", false};
}

TEST_F(CrdApi, MutatingWebhookPatchIsApplied) {
  auto hook = pod_hook("gate.example.io");
  hook["objectSelector"] = {{"matchLabels", {{"gate", "yes"}}}};
  ASSERT_EQ(call("POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
                 webhook_config("MutatingWebhookConfiguration", hook))
                .status,
            201);
  answer = [](const json& review) {
    const std::string patch =
        R"([{"op":"add","path":"/spec/schedulingGates","value":[{"name":"example.io/gate"}]}])";
    return review_answer(
        review, {{"allowed", true}, {"patchType", "JSONPatch"}, {"patch", base64_encode(patch)}});
  };
  auto r = call("POST", "/api/v1/namespaces/default/pods", pod("p1", {{"gate", "yes"}}));
  ASSERT_EQ(r.status, 201) << r.body.dump();
  EXPECT_EQ(r.body["spec"]["schedulingGates"][0]["name"], "example.io/gate");
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(posted[0].url, "https://127.0.0.1:9/mutate?timeout=10s");
  EXPECT_EQ(posted[0].ca, "PEM");
  EXPECT_EQ(posted[0].review["request"]["operation"], "CREATE");
  EXPECT_EQ(posted[0].review["request"]["namespace"], "default");
  EXPECT_EQ(posted[0].review["request"]["resource"]["resource"], "pods");
  // The objectSelector leaves other pods alone.
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod("p2")).status, 201);
  EXPECT_EQ(posted.size(), 1u);
}

TEST_F(CrdApi, ValidatingWebhookRefusalAndFailurePolicy) {
  auto hook = pod_hook("deny.example.io");
  hook["namespaceSelector"] = {{"matchLabels", {{"guarded", "true"}}}};
  ASSERT_EQ(call("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
                 webhook_config("ValidatingWebhookConfiguration", hook))
                .status,
            201);
  ASSERT_EQ(call("POST", "/api/v1/namespaces",
                 {{"metadata", {{"name", "g"}, {"labels", {{"guarded", "true"}}}}}})
                .status,
            201);
  answer = [](const json& review) {
    return review_answer(
        review, {{"allowed", false}, {"status", {{"code", 403}, {"message", "no pods here"}}}});
  };
  auto r = call("POST", "/api/v1/namespaces/g/pods", pod("p"));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body["message"],
            "admission webhook \"deny.example.io\" denied the request: no pods here");
  EXPECT_FALSE(store.find("pods", "g", "p"));
  // Outside the selected namespaces the webhook is not called.
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod("p")).status, 201);
  EXPECT_EQ(posted.size(), 1u);

  // Unreachable: Fail refuses with 500, Ignore lets the request through.
  answer = [](const json&) { return HttpResponse{0, "", "connection refused", false}; };
  r = call("POST", "/api/v1/namespaces/g/pods", pod("q"));
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body["message"].get<std::string>().find("failed calling webhook \"deny.example.io\""),
            std::string::npos);
  ASSERT_EQ(
      call("PATCH", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/cfg",
           {{"webhooks",
             {{{"name", "deny.example.io"},
               {"failurePolicy", "Ignore"},
               {"admissionReviewVersions", {"v1"}},
               {"sideEffects", "None"},
               {"clientConfig", hook["clientConfig"]},
               {"rules", hook["rules"]},
               {"namespaceSelector", hook["namespaceSelector"]}}}}},
           {}, "application/merge-patch+json")
          .status,
      200);
  EXPECT_EQ(call("POST", "/api/v1/namespaces/g/pods", pod("q")).status, 201);
}

TEST_F(CrdApi, WebhookConfigurationsAreCheckedAndDefaulted) {
  const std::string path = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
  auto hook = pod_hook("h.example.io");
  hook["clientConfig"]["url"] = "http://127.0.0.1:9/x";
  hook.erase("sideEffects");
  auto r = call("POST", path, webhook_config("ValidatingWebhookConfiguration", hook));
  EXPECT_EQ(r.status, 422);
  const std::string message = r.body["message"];
  EXPECT_NE(message.find("webhooks[0].clientConfig.url: Invalid value: \"http://127.0.0.1:9/x\": "
                         "'https' is the only allowed URL scheme"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("webhooks[0].sideEffects: Required value"), std::string::npos) << message;
  r = call("POST", path,
           webhook_config("ValidatingWebhookConfiguration", pod_hook("h.example.io")));
  ASSERT_EQ(r.status, 201) << r.body.dump();
  EXPECT_EQ(r.body["webhooks"][0]["failurePolicy"], "Fail");
  EXPECT_EQ(r.body["webhooks"][0]["timeoutSeconds"], 10);
}

TEST(CustomTable, JsonPathAndAges) {
  json obj = {
      {"status",
       {{"conditions",
         {{{"type", "A"}, {"status", "False"}}, {{"type", "Ready"}, {"status", "True"}}}}}}};
  EXPECT_EQ(json_path_value(obj, ".status.conditions[?(@.type==\"Ready\")].status"), "True");
  EXPECT_EQ(json_path_value(obj, ".status.conditions[0].type"), "A");
  EXPECT_TRUE(json_path_value(obj, ".spec.missing").is_null());
  EXPECT_EQ(human_duration(45), "45s");
  EXPECT_EQ(human_duration(192), "3m12s");
  EXPECT_EQ(human_duration(5 * 3600), "5h");
  EXPECT_EQ(human_duration(76 * 3600), "3d4h");
}

}  // namespace
}  // namespace fitscale::vcluster
