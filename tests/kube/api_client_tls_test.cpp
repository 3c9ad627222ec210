// The API client over HTTPS, as against a real API server: the kubeconfig's CA verifies the
// server (an IP subjectAltName, no hostname), a client certificate authenticates, watch streams
// arrive line by line, and a failed handshake is reported as a TLS failure that says why.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kube/api_access.h"
#include "kube/api_client.h"
#include "model/error.h"

namespace fitscale {
namespace {

using KeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using CertPtr = std::unique_ptr<X509, decltype(&X509_free)>;

struct Issued {
  KeyPtr key{nullptr, &EVP_PKEY_free};
  CertPtr cert{nullptr, &X509_free};
};

void add_ext(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  ASSERT_NE(ext, nullptr) << value;
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// A P-256 key and a certificate for `cn`, signed by `ca` (self-signed when null).
Issued issue(const std::string& cn, const Issued* ca, bool is_ca, const char* san = nullptr,
             const char* usage = nullptr) {
  Issued out;
  out.key.reset(EVP_EC_gen("P-256"));
  out.cert.reset(X509_new());
  X509* c = out.cert.get();
  X509_set_version(c, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(c),
                   static_cast<long>(std::hash<std::string>{}(cn)&0x7fffffff));
  X509_gmtime_adj(X509_getm_notBefore(c), -60);
  X509_gmtime_adj(X509_getm_notAfter(c), 3600);
  X509_set_pubkey(c, out.key.get());
  X509_NAME* name = X509_get_subject_name(c);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509* issuer = ca ? ca->cert.get() : c;
  X509_set_issuer_name(c, X509_get_subject_name(issuer));
  if (is_ca) {
    add_ext(c, issuer, NID_basic_constraints, "critical,CA:TRUE");
    add_ext(c, issuer, NID_key_usage, "critical,keyCertSign,cRLSign");
  }
  if (san) add_ext(c, issuer, NID_subject_alt_name, san);
  if (usage) add_ext(c, issuer, NID_ext_key_usage, usage);
  X509_sign(c, ca ? ca->key.get() : out.key.get(), EVP_sha256());
  return out;
}

std::string pem(X509* cert) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

std::string pem(EVP_PKEY* key) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

// An HTTPS server on 127.0.0.1 that requires a client certificate signed by the same CA:
// /api/v1/nodes answers a list, /watch streams three JSON lines.
struct TlsServerTest : ::testing::Test {
  Issued ca = issue("test-ca", nullptr, true);
  Issued other_ca = issue("other-ca", nullptr, true);
  Issued server_cert = issue("api", &ca, false, "IP:127.0.0.1,DNS:localhost", "serverAuth");
  Issued client = issue("admin", &ca, false, nullptr, "clientAuth");
  std::unique_ptr<httplib::SSLServer> server;
  std::thread thread;
  int port = 0;

  void SetUp() override {
    X509_STORE* clients = X509_STORE_new();
    X509_STORE_add_cert(clients, ca.cert.get());
    server = std::make_unique<httplib::SSLServer>(server_cert.cert.get(), server_cert.key.get(),
                                                  clients);
    ASSERT_TRUE(server->is_valid());
    server->Get("/api/v1/nodes", [](const httplib::Request& req, httplib::Response& res) {
      if (req.has_param("watch")) {
        res.set_chunked_content_provider("application/json", [](size_t, httplib::DataSink& sink) {
          for (int i = 0; i < 3; ++i) {
            std::string line = R"({"type":"ADDED","object":{"n":)" + std::to_string(i) + "}}\n";
            sink.write(line.data(), line.size());
          }
          sink.done();
          return true;
        });
        return;
      }
      res.set_content(R"({"kind":"NodeList","items":[]})", "application/json");
    });
    port = server->bind_to_any_port("127.0.0.1");
    ASSERT_GT(port, 0);
    thread = std::thread([this] { server->listen_after_bind(); });
    ASSERT_TRUE(server->is_valid());
  }
  void TearDown() override {
    server->stop();
    if (thread.joinable()) thread.join();
  }

  KubeConfig config(const Issued& trusted, bool with_client_cert) const {
    KubeConfig c;
    c.source = "test.kubeconfig";
    c.server = "https://127.0.0.1:" + std::to_string(port);
    c.ca_pem = pem(trusted.cert.get());
    if (with_client_cert) {
      c.client_cert_pem = pem(client.cert.get());
      c.client_key_pem = pem(client.key.get());
    }
    return c;
  }
};

TEST_F(TlsServerTest, VerifiesTheServerWithTheKubeconfigCaAndSendsTheClientCertificate) {
  // The server requires a client certificate, so an answer means the client sent its own.
  ApiClient api(config(ca, true));
  for (int i = 0; i < 2; ++i) {  // the second request reuses the connection and its blobs
    HttpResponse r = api.get("/api/v1/nodes");
    ASSERT_EQ(r.status, 200) << r.error;
    EXPECT_NE(r.body.find("NodeList"), std::string::npos);
  }
}

TEST_F(TlsServerTest, WatchStreamsArriveLineByLineOverTls) {
  ApiClient api(config(ca, true));
  std::vector<std::string> lines;
  std::atomic<bool> stop{false};
  HttpResponse failure;
  StreamEnd end = api.stream(
      "/api/v1/nodes?watch=true",
      [&](std::string_view line) {
        lines.emplace_back(line);
        return true;
      },
      stop, &failure);
  EXPECT_EQ(end, StreamEnd::Closed) << failure.error;
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2], R"({"type":"ADDED","object":{"n":2}})");
}

TEST_F(TlsServerTest, AServerCertificateFromAnotherCaIsATlsFailureSayingSo) {
  ApiClient api(config(other_ca, true));
  HttpResponse r = api.get("/api/v1/nodes");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(r.tls_failure);
  EXPECT_NE(r.error.find("certificate"), std::string::npos) << r.error;

  try {
    check_api_access(config(other_ca, true));
    FAIL() << "another CA was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("test.kubeconfig"), std::string::npos) << what;
    EXPECT_NE(what.find("certificate"), std::string::npos) << what;
  }
}

TEST(ApiAccess, CredentialsTheServerRefusesStopWithTheStatusAndWhatWasSent) {
  httplib::Server server;
  server.Get("/api/v1/nodes", [](const httplib::Request&, httplib::Response& res) {
    res.status = 401;
    res.set_content(R"({"kind":"Status","code":401,"message":"Unauthorized"})", "application/json");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread t([&] { server.listen_after_bind(); });
  KubeConfig c;
  c.source = "k.yaml";
  c.server = "http://127.0.0.1:" + std::to_string(port);
  c.token = "s3cret";
  std::string message;
  try {
    check_api_access(c);
  } catch (const InputError& e) {
    message = e.what();
  }
  server.stop();
  t.join();
  EXPECT_NE(message.find("k.yaml"), std::string::npos) << message;
  EXPECT_NE(message.find("401"), std::string::npos) << message;
  EXPECT_NE(message.find("the kubeconfig's token"), std::string::npos) << message;
  EXPECT_EQ(message.find("s3cret"), std::string::npos) << message;
}

TEST(ApiAccess, AServerThatIsDownIsLeftToTheInformersToRetry) {
  // A port that was free a moment ago: nobody listens there, the connection is refused.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  close(fd);
  KubeConfig c;
  c.source = "k.yaml";
  c.server = "http://127.0.0.1:" + std::to_string(port);
  EXPECT_NO_THROW(check_api_access(c));
}

}  // namespace
}  // namespace fitscale
