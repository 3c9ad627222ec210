// What official clients and kubectl rely on beyond plain CRUD: owner-reference garbage
// collection, Indexed Jobs, PriorityClass admission, pods/log, field validation, the OpenAPI
// documents and the generated TLS certificates. Driven through RestApi and tick() with a
// hand-set clock.
#include <gtest/gtest.h>

#include "cloud/sim/sim_cloud.h"
#include "model/catalog.h"
#include "vcluster/openapi.h"
#include "vcluster/self_signed_tls.h"
#include "vcluster/tls_context.h"
#include "vcluster/virtual_cluster.h"

namespace fitscale::vcluster {
namespace {

class ManualClock final : public Clock {
 public:
  Time now() const override { return t; }
  Time t = 1'800'000'000;
};

class ClientFeatures : public ::testing::Test {
 protected:
  ClientFeatures()
      : catalog(
            build_catalog(parse_catalog_csv(default_catalog_csv(), "embedded"), CatalogOptions{})),
        sim(catalog, clock, SimCloudOptions{}),
        cluster(catalog, sim, &sim, clock, VirtualClusterOptions{}) {}

  ApiResponse call(const std::string& method, const std::string& path,
                   const nlohmann::json& body = nullptr,
                   std::map<std::string, std::string> query = {}) {
    ApiRequest r;
    r.method = method;
    r.path = *parse_api_path(path);
    if (!body.is_null()) r.body = body.dump();
    r.content_type = method == "PATCH" ? "application/merge-patch+json" : "application/json";
    r.query = std::move(query);
    return cluster.api().handle(r);
  }

  static nlohmann::json pod(const std::string& name, const nlohmann::json& spec_extra = {}) {
    nlohmann::json p = {{"apiVersion", "v1"},
                        {"kind", "Pod"},
                        {"metadata", {{"name", name}}},
                        {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
    if (spec_extra.is_object()) p["spec"].update(spec_extra);
    return p;
  }

  static nlohmann::json job(const std::string& name, const nlohmann::json& spec_extra = {}) {
    nlohmann::json j = {{"apiVersion", "batch/v1"},
                        {"kind", "Job"},
                        {"metadata", {{"name", name}}},
                        {"spec",
                         {{"parallelism", 2},
                          {"template",
                           {{"spec",
                             {{"restartPolicy", "Never"},
                              {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}}}}}};
    if (spec_extra.is_object()) j["spec"].update(spec_extra);
    return j;
  }

  std::vector<nlohmann::json> pods_of(const std::string& job_name) {
    std::vector<nlohmann::json> out;
    for (auto& p : cluster.store().list("pods", "default").items) {
      if (p["metadata"].value("generateName", "").rfind(job_name + "-", 0) == 0) out.push_back(p);
    }
    return out;
  }

  ManualClock clock;
  Catalog catalog;
  SimCloud sim;
  VirtualCluster cluster;
};

TEST_F(ClientFeatures, OrphanKeepsDependentsAndDropsTheirReference) {
  ASSERT_EQ(call("POST", "/apis/batch/v1/namespaces/default/jobs", job("j")).status, 201);
  cluster.tick();
  ASSERT_EQ(pods_of("j").size(), 2u);
  auto del =
      call("DELETE", "/apis/batch/v1/namespaces/default/jobs/j", {{"propagationPolicy", "Orphan"}});
  ASSERT_EQ(del.status, 200) << del.body.dump();
  cluster.tick();
  cluster.tick();
  auto left = pods_of("j");
  ASSERT_EQ(left.size(), 2u);
  for (const auto& p : left) EXPECT_FALSE(p["metadata"].contains("ownerReferences")) << p.dump();
}

TEST_F(ClientFeatures, JobsDeletedWithoutAPolicyOrphanAsKubeApiserverDoes) {
  ASSERT_EQ(call("POST", "/apis/batch/v1/namespaces/default/jobs", job("j")).status, 201);
  cluster.tick();
  ASSERT_EQ(call("DELETE", "/apis/batch/v1/namespaces/default/jobs/j").status, 200);
  cluster.tick();
  EXPECT_EQ(pods_of("j").size(), 2u);
}

TEST_F(ClientFeatures, BackgroundDeletesDependentsOnTheNextPass) {
  ASSERT_EQ(call("POST", "/apis/batch/v1/namespaces/default/jobs", job("j")).status, 201);
  cluster.tick();
  ASSERT_EQ(call("DELETE", "/apis/batch/v1/namespaces/default/jobs/j", nullptr,
                 {{"propagationPolicy", "Background"}})
                .status,
            200);
  EXPECT_FALSE(cluster.store().find("jobs", "default", "j"));
  cluster.tick();
  EXPECT_TRUE(pods_of("j").empty());
}

TEST_F(ClientFeatures, ADependentWithAnotherLiveOwnerOnlyLosesTheDanglingReference) {
  auto cm = call("POST", "/api/v1/namespaces/default/configmaps",
                 {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "keep"}}}});
  ASSERT_EQ(cm.status, 201);
  auto p = pod("two-owners");
  p["metadata"]["ownerReferences"] = {
      {{"apiVersion", "v1"},
       {"kind", "ConfigMap"},
       {"name", "keep"},
       {"uid", cm.body["metadata"]["uid"]}},
      {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "gone"}, {"uid", "no-such-uid"}}};
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", p).status, 201);
  cluster.tick();
  auto after = cluster.store().find("pods", "default", "two-owners");
  ASSERT_TRUE(after);
  ASSERT_EQ((*after)["metadata"]["ownerReferences"].size(), 1u);
  EXPECT_EQ((*after)["metadata"]["ownerReferences"][0]["name"], "keep");
}

TEST_F(ClientFeatures, ForegroundKeepsTheOwnerUntilItsDependentsAreGone) {
  ASSERT_EQ(call("POST", "/apis/batch/v1/namespaces/default/jobs", job("j")).status, 201);
  cluster.tick();
  auto del = call("DELETE", "/apis/batch/v1/namespaces/default/jobs/j",
                  {{"propagationPolicy", "Foreground"}});
  ASSERT_EQ(del.status, 200);
  EXPECT_TRUE(del.body["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(del.body["metadata"]["finalizers"], nlohmann::json::array({"foregroundDeletion"}));
  // The Job controller must not replace the pods the collector deletes.
  cluster.tick();
  cluster.tick();
  cluster.tick();
  EXPECT_TRUE(pods_of("j").empty());
  EXPECT_FALSE(cluster.store().find("jobs", "default", "j"));
}

TEST_F(ClientFeatures, UnknownPropagationPolicyIs422) {
  ASSERT_EQ(call("POST", "/apis/batch/v1/namespaces/default/jobs", job("j")).status, 201);
  auto del = call("DELETE", "/apis/batch/v1/namespaces/default/jobs/j", nullptr,
                  {{"propagationPolicy", "Sometimes"}});
  EXPECT_EQ(del.status, 422);
  EXPECT_TRUE(cluster.store().find("jobs", "default", "j"));
}

TEST_F(ClientFeatures, IndexedJobPodsCarryTheirIndex) {
  ASSERT_EQ(call("POST", "/apis/batch/v1/namespaces/default/jobs",
                 job("ix", {{"completionMode", "Indexed"}, {"completions", 3}, {"parallelism", 2}}))
                .status,
            201);
  cluster.tick();
  auto pods = pods_of("ix");
  ASSERT_EQ(pods.size(), 2u);
  std::set<std::string> indexes;
  for (const auto& p : pods) {
    const std::string i =
        p["metadata"]["annotations"].value("batch.kubernetes.io/job-completion-index", "");
    indexes.insert(i);
    EXPECT_EQ(p["metadata"]["labels"].value("batch.kubernetes.io/job-completion-index", ""), i);
    EXPECT_EQ(p["spec"].value("hostname", ""), "ix-" + i);
    EXPECT_EQ(p["metadata"].value("generateName", ""), "ix-" + i + "-");
    EXPECT_EQ(p["spec"]["containers"][0]["env"][0]["name"], "JOB_COMPLETION_INDEX");
  }
  EXPECT_EQ(indexes, (std::set<std::string>{"0", "1"}));
  // Index 1 succeeds: the next pod takes index 2, and completedIndexes says "1".
  for (const auto& p : pods) {
    if (p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] != "1") continue;
    cluster.store().mutate("pods", "default", p["metadata"]["name"],
                           [](nlohmann::json& o) { o["status"]["phase"] = "Succeeded"; });
  }
  cluster.tick();
  auto j = cluster.store().get("jobs", "default", "ix");
  EXPECT_EQ(j["status"].value("completedIndexes", ""), "1");
  std::set<std::string> now;
  for (const auto& p : pods_of("ix"))
    now.insert(p["metadata"]["annotations"].value("batch.kubernetes.io/job-completion-index", ""));
  EXPECT_EQ(now, (std::set<std::string>{"0", "1", "2"}));
}

TEST_F(ClientFeatures, PriorityClassResolvesAtPodCreation) {
  auto pc = [](const std::string& name, long value, bool def) {
    return nlohmann::json{{"apiVersion", "scheduling.k8s.io/v1"},
                          {"kind", "PriorityClass"},
                          {"metadata", {{"name", name}}},
                          {"value", value},
                          {"globalDefault", def}};
  };
  ASSERT_EQ(call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", pc("low", 10, true)).status,
            201);
  EXPECT_EQ(call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", pc("low2", 5, true)).status,
            422);
  EXPECT_EQ(
      call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", pc("huge", 2000000000, false))
          .status,
      422);
  auto a = call("POST", "/api/v1/namespaces/default/pods", pod("a"));
  ASSERT_EQ(a.status, 201);
  EXPECT_EQ(a.body["spec"]["priority"], 10);
  EXPECT_EQ(a.body["spec"]["priorityClassName"], "low");
  auto b = call("POST", "/api/v1/namespaces/default/pods",
                pod("b", {{"priorityClassName", "system-node-critical"}}));
  EXPECT_EQ(b.body["spec"]["priority"], 2000001000);
  auto c = call("POST", "/api/v1/namespaces/default/pods", pod("c", {{"priorityClassName", "x"}}));
  EXPECT_EQ(c.status, 403);
  EXPECT_EQ(c.body["message"], "pods \"c\" is forbidden: no PriorityClass with name x was found");
  auto d = call("POST", "/api/v1/namespaces/default/pods", pod("d", {{"priority", 99}}));
  EXPECT_EQ(d.status, 403);
}

TEST_F(ClientFeatures, PodLogTellsTheSimulatedContainersStory) {
  auto p = pod("l");
  p["metadata"]["annotations"]["fitscale.io/sim-duration"] = "30s";
  p["spec"]["containers"][0]["env"] = {{{"name", "GREETING"}, {"value", "hi"}}};
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", p).status, 201);
  auto waiting = call("GET", "/api/v1/namespaces/default/pods/l/log");
  EXPECT_EQ(waiting.status, 400);
  cluster.store().mutate("pods", "default", "l", [](nlohmann::json& o) {
    o["spec"]["nodeName"] = "n1";
    o["status"]["containerStatuses"] = {{{"name", "c"},
                                         {"state",
                                          {{"terminated",
                                            {{"exitCode", 0},
                                             {"reason", "Completed"},
                                             {"startedAt", "2027-01-15T08:00:00Z"},
                                             {"finishedAt", "2027-01-15T08:00:30Z"}}}}}}};
  });
  auto log = call("GET", "/api/v1/namespaces/default/pods/l/log");
  ASSERT_EQ(log.status, 200) << log.body.dump();
  ASSERT_TRUE(log.text);
  EXPECT_EQ(*log.text,
            "fitscale simulated container \"c\" (image busybox) started on node n1\n"
            "GREETING=hi\n"
            "running for 30s (fitscale.io/sim-duration)\n"
            "exited with code 0 (Completed)\n");
  auto tail = call("GET", "/api/v1/namespaces/default/pods/l/log", nullptr,
                   {{"tailLines", "1"}, {"timestamps", "true"}});
  EXPECT_EQ(*tail.text, "2027-01-15T08:00:30Z exited with code 0 (Completed)\n");
  EXPECT_EQ(
      call("GET", "/api/v1/namespaces/default/pods/l/log", nullptr, {{"container", "x"}}).status,
      400);
}

TEST_F(ClientFeatures, StrictFieldValidationNamesTheUnknownField) {
  auto p = pod("v");
  p["spec"]["containers"][0]["imagePullPolcy"] = "Always";
  p["spec"]["affinity"] = {{"anything", "goes"}};  // an open sub-object
  auto strict = call("POST", "/api/v1/namespaces/default/pods", p, {{"fieldValidation", "Strict"}});
  EXPECT_EQ(strict.status, 400);
  EXPECT_EQ(strict.body["message"],
            "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown "
            "field \"spec.containers[0].imagePullPolcy\"");
  auto warn = call("POST", "/api/v1/namespaces/default/pods", p);
  EXPECT_EQ(warn.status, 201);
  EXPECT_EQ(warn.warnings,
            std::vector<std::string>{"unknown field \"spec.containers[0].imagePullPolcy\""});
  auto patch = call("PATCH", "/api/v1/namespaces/default/pods/v",
                    {{"spec", {{"nodeSelectr", {{"a", "b"}}}}}}, {{"fieldValidation", "Strict"}});
  EXPECT_EQ(patch.status, 400);
}

TEST_F(ClientFeatures, OpenApiV3DeclaresFieldValidationOnEveryPatch) {
  auto index = nlohmann::json::parse(
      openapi_answer(cluster.api().registry(), "/openapi/v3", "application/json").body);
  ASSERT_TRUE(index["paths"].contains("api/v1"));
  ASSERT_TRUE(index["paths"].contains("apis/batch/v1"));
  const std::string url = index["paths"]["apis/batch/v1"]["serverRelativeURL"];
  EXPECT_EQ(url.rfind("/openapi/v3/apis/batch/v1?hash=", 0), 0u);
  auto doc = nlohmann::json::parse(
      openapi_answer(cluster.api().registry(), "/openapi/v3/apis/batch/v1", "").body);
  const auto& patch = doc["paths"]["/apis/batch/v1/namespaces/{namespace}/jobs/{name}"]["patch"];
  EXPECT_EQ(patch["x-kubernetes-group-version-kind"]["kind"], "Job");
  bool has = false;
  for (const auto& p : patch["parameters"]) has |= p["name"] == "fieldValidation";
  EXPECT_TRUE(has);
  EXPECT_TRUE(doc["components"]["schemas"].contains("io.k8s.api.batch.v1.JobSpec"));
  EXPECT_EQ(openapi_answer(cluster.api().registry(), "/openapi/v3/apis/nope/v1", "").status, 404);
  EXPECT_EQ(openapi_answer(cluster.api().registry(), "/openapi/v2",
                           "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
                .status,
            406);
  auto v2 = nlohmann::json::parse(
      openapi_answer(cluster.api().registry(), "/openapi/v2", "application/json").body);
  EXPECT_EQ(v2["definitions"]["io.k8s.api.core.v1.Pod"]["properties"]["spec"]["$ref"],
            "#/definitions/io.k8s.api.core.v1.PodSpec");
}

TEST(GeneratedTls, TheServingCertificateVerifiesAgainstTheCa) {
  auto tls = generate_serving_tls({"127.0.0.1", "localhost"}, 1'800'000'000);
  EXPECT_NE(tls.key_pem.find("PRIVATE KEY"), std::string::npos);
  // verify_against checks the chain at the wall-clock time; the certificate is valid for a
  // year from the given time, so use now.
  auto now_tls = generate_serving_tls({"127.0.0.1"}, static_cast<Time>(std::time(nullptr)));
  EXPECT_EQ(verify_against(now_tls.cert_pem, now_tls.ca_pem), "");
  auto other = generate_serving_tls({"127.0.0.1"}, static_cast<Time>(std::time(nullptr)));
  EXPECT_NE(verify_against(now_tls.cert_pem, other.ca_pem), "");
}

}  // namespace
}  // namespace fitscale::vcluster
