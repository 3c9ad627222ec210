#include "kube/kubeconfig.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "model/base64.h"
#include "model/error.h"

namespace fitscale {
namespace {

// "hello CA" and "PEM KEY" in base64.
constexpr const char* kConfig = R"(apiVersion: v1
kind: Config
current-context: dev
contexts:
- name: other
  context: {cluster: c2, user: u2}
- name: dev
  context:
    cluster: c1
    user: u1
    namespace: research
clusters:
- name: c2
  cluster: {server: "https://wrong:6443"}
- name: c1
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority-data: aGVsbG8gQ0E=
users:
- name: u1
  user:
    token: abc.def
- name: u2
  user: {token: nope}
)";

std::string error_of(const std::string& yaml) {
  try {
    parse_kubeconfig(yaml, "kc.yaml", "");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Kubeconfig, FollowsTheCurrentContextToClusterAndUser) {
  KubeConfig c = parse_kubeconfig(kConfig, "kc.yaml", "");
  EXPECT_EQ(c.server, "https://10.0.0.1:6443");  // trailing slash dropped: paths start with '/'
  EXPECT_EQ(c.ca_pem, "hello CA");
  EXPECT_EQ(c.token, "abc.def");
  EXPECT_EQ(c.default_namespace, "research");
  EXPECT_FALSE(c.insecure_skip_tls_verify);
}

TEST(Kubeconfig, ReadsRelativeFilesNextToTheKubeconfig) {
  auto dir = std::filesystem::temp_directory_path() / ("kc-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "ca.crt") << "CA FROM FILE";
  std::ofstream(dir / "token") << "tok-from-file\n";
  std::ofstream(dir / "client.crt") << "CERT";
  std::ofstream(dir / "client.key") << "KEY";
  std::ofstream(dir / "config") << R"(current-context: x
contexts: [{name: x, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: "https://h:1", certificate-authority: ca.crt}}]
users: [{name: u, user: {tokenFile: token, client-certificate: client.crt, client-key: client.key}}]
)";
  KubeConfig c = load_kubeconfig((dir / "config").string());
  EXPECT_EQ(c.ca_pem, "CA FROM FILE");
  EXPECT_EQ(c.token, "tok-from-file");
  EXPECT_EQ(c.client_cert_pem, "CERT");
  EXPECT_EQ(c.client_key_pem, "KEY");
  std::filesystem::remove_all(dir);
}

TEST(Kubeconfig, InsecureSkipVerifyAndClientCertificateData) {
  KubeConfig c = parse_kubeconfig(R"(current-context: x
contexts: [{name: x, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: "http://127.0.0.1:8080", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {client-certificate-data: Q0VSVA==, client-key-data: S0VZ}}]
)",
                                  "kc.yaml", "");
  EXPECT_TRUE(c.insecure_skip_tls_verify);
  EXPECT_EQ(c.client_cert_pem, "CERT");
  EXPECT_EQ(c.client_key_pem, "KEY");
}

TEST(Kubeconfig, ErrorsNameTheFileAndTheKey) {
  EXPECT_EQ(error_of("current-context: [1, 2"), error_of("current-context: [1, 2"));
  EXPECT_NE(error_of("current-context: [1, 2").find("kc.yaml:"), std::string::npos);
  EXPECT_NE(error_of("current-context: [1, 2").find("invalid YAML"), std::string::npos);
  EXPECT_EQ(error_of("clusters: []"), "kc.yaml: current-context: missing");
  EXPECT_EQ(error_of("current-context: x\ncontexts: []"), "kc.yaml: contexts: no entry named 'x'");
  std::string no_server = R"(current-context: x
contexts: [{name: x, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {certificate-authority-data: aGk=}}]
)";
  EXPECT_EQ(error_of(no_server), "kc.yaml: clusters[0].cluster.server: missing");
  std::string bad_b64 = R"(current-context: x
contexts: [{name: x, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: "https://h"}}]
users: [{name: u, user: {client-certificate-data: "@@@", client-key-data: S0VZ}}]
)";
  EXPECT_EQ(error_of(bad_b64), "kc.yaml: users[0].user.client-certificate-data: not valid base64");
  std::string bad_bool = R"(current-context: x
contexts: [{name: x, context: {cluster: c}}]
clusters: [{name: c, cluster: {server: "https://h", insecure-skip-tls-verify: yes please}}]
)";
  EXPECT_NE(error_of(bad_bool).find(
                "clusters[0].cluster.insecure-skip-tls-verify: expected true or false"),
            std::string::npos);
  std::string exec = R"(current-context: x
contexts: [{name: x, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: "https://h"}}]
users: [{name: u, user: {exec: {command: aws}}}]
)";
  EXPECT_NE(error_of(exec).find("users[0].user.exec: not supported"), std::string::npos);
}

TEST(Kubeconfig, MissingFileIsAnInputError) {
  EXPECT_THROW(load_kubeconfig("/nonexistent/kubeconfig"), InputError);
}

TEST(Kubeconfig, Base64WrittenForCertificateDataReadsBackByteForByte) {
  EXPECT_EQ(base64_encode("hello CA"), "aGVsbG8gQ0E=");
  EXPECT_EQ(base64_encode(""), "");
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  for (std::size_t n : {0u, 1u, 2u, 3u, 100u, 256u}) {
    EXPECT_EQ(base64_decode(base64_encode(bytes.substr(0, n)), "x"), bytes.substr(0, n)) << n;
  }
}

// The fuzzer's find: a tokenFile naming a device was read until memory ran out.
TEST(Kubeconfig, ATokenFileThatNeverEndsIsAnErrorNamingTheKey) {
  const std::string yaml = R"(apiVersion: v1
kind: Config
current-context: c
contexts: [{name: c, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: "https://10.0.0.1:6443"}}]
users: [{name: u, user: {tokenFile: /dev/zero}}]
)";
  try {
    parse_kubeconfig(yaml, "kc.yaml", "/");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "kc.yaml: users[0].user.tokenFile: /dev/zero: longer than 1048576 bytes; is it the "
              "right file?");
  }
}

TEST(Kubeconfig, InClusterReadsTheServiceAccount) {
  auto dir = std::filesystem::temp_directory_path() / ("sa-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "token") << "sa-token\n";
  std::ofstream(dir / "ca.crt") << "SA CA";
  std::ofstream(dir / "namespace") << "fitscale-system";
  KubeConfig c = in_cluster_config({"10.96.0.1", "443", dir.string()});
  EXPECT_EQ(c.server, "https://10.96.0.1:443");
  EXPECT_EQ(c.token, "sa-token");
  EXPECT_EQ(c.ca_pem, "SA CA");
  EXPECT_EQ(c.default_namespace, "fitscale-system");
  EXPECT_THROW(in_cluster_config({"", "", dir.string()}), InputError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fitscale
