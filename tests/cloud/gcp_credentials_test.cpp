// Compute Engine's two token sources: the service-account JWT (well-formed, RS256-signed so that
// the public key of a key pair made in the test verifies it; exchanged at the token endpoint with
// the jwt-bearer grant) and the metadata server (Metadata-Flavor: Google), both on loopback.
#include "cloud/gcp/gcp_credentials.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "cloud/aws/curl_transport.h"
#include "cloud/gcp/gce_error.h"
#include "loopback_server.h"

namespace fitscale::gcp {
namespace {

using nlohmann::json;

constexpr Time kNow = 1'780'000'000;

class SettableClock final : public Clock {
 public:
  Time now() const override { return t; }
  Time t = kNow;
};

struct KeyPair {
  std::string private_pem;
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{nullptr, &EVP_PKEY_free};
};

// A fresh RSA key pair, its private half in PKCS#8 PEM as a service-account key file holds it.
KeyPair make_key_pair() {
  KeyPair kp;
  kp.key.reset(EVP_RSA_gen(2048));
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  PEM_write_bio_PKCS8PrivateKey(bio.get(), kp.key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  kp.private_pem.assign(data, static_cast<std::size_t>(n));
  return kp;
}

std::string base64url_decode(std::string s) {
  for (char& c : s) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (s.size() % 4 != 0) s += '=';
  std::string out(s.size(), '\0');
  const int n =
      EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(s.data()), static_cast<int>(s.size()));
  out.resize(static_cast<std::size_t>(n < 0 ? 0 : n));
  // EVP_DecodeBlock counts padding bytes as zeros: drop them.
  for (std::size_t i = s.size(); i > 0 && s[i - 1] == '='; --i) out.pop_back();
  return out;
}

bool verifies(EVP_PKEY* key, const std::string& jwt) {
  const std::size_t dot = jwt.rfind('.');
  const std::string input = jwt.substr(0, dot);
  const std::string sig = base64url_decode(jwt.substr(dot + 1));
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key);
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                          reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
}

ServiceAccountKey key_for(const KeyPair& kp, const std::string& token_uri) {
  const json file = {{"type", "service_account"},
                     {"project_id", "research-123"},
                     {"private_key_id", "0123abcd"},
                     {"private_key", kp.private_pem},
                     {"client_email", "fitscale@research-123.iam.gserviceaccount.com"},
                     {"token_uri", token_uri}};
  return parse_service_account_key(file.dump(), "key.json");
}

TEST(GcpCredentials, TheServiceAccountJwtIsWellFormedAndVerifiesWithThePublicKey) {
  const KeyPair kp = make_key_pair();
  const ServiceAccountKey key = key_for(kp, "https://oauth2.googleapis.com/token");
  const std::string jwt = service_account_jwt(key, kComputeScope, kNow);

  const std::size_t a = jwt.find('.');
  const std::size_t b = jwt.find('.', a + 1);
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  EXPECT_EQ(jwt.find_first_of("+/="), std::string::npos);  // base64url, unpadded
  const json header = json::parse(base64url_decode(jwt.substr(0, a)));
  const json claims = json::parse(base64url_decode(jwt.substr(a + 1, b - a - 1)));
  EXPECT_EQ(header["alg"], "RS256");
  EXPECT_EQ(header["typ"], "JWT");
  EXPECT_EQ(header["kid"], "0123abcd");
  EXPECT_EQ(claims["iss"], "fitscale@research-123.iam.gserviceaccount.com");
  EXPECT_EQ(claims["scope"], "https://www.googleapis.com/auth/compute");
  EXPECT_EQ(claims["aud"], "https://oauth2.googleapis.com/token");
  EXPECT_EQ(claims["iat"], kNow);
  EXPECT_EQ(claims["exp"], kNow + 3600);

  EXPECT_TRUE(verifies(kp.key.get(), jwt));
  std::string tampered = jwt;
  tampered[a + 3] = tampered[a + 3] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(verifies(kp.key.get(), tampered));
  const KeyPair other = make_key_pair();
  EXPECT_FALSE(verifies(other.key.get(), jwt));
}

TEST(GcpCredentials, TheJwtIsExchangedAtTheTokenEndpointAndTheTokenKeptUntilNearExpiry) {
  replay::LoopbackServer server;
  int asked = 0;
  server.handle = [&](const httplib::Request& req, httplib::Response& res) {
    ++asked;
    res.set_content(R"({"access_token":"ya29.sa-)" + std::to_string(asked) +
                        R"(","expires_in":3599,"token_type":"Bearer"})",
                    "application/json");
    (void)req;
  };
  const KeyPair kp = make_key_pair();
  aws::CurlTransport transport;
  SettableClock clock;
  ServiceAccountCredential credential(key_for(kp, server.url() + "/token"), transport, clock);
  EXPECT_EQ(credential.token(), "ya29.sa-1");
  clock.t += 3000;  // 599 s left: kept
  EXPECT_EQ(credential.token(), "ya29.sa-1");
  clock.t += 400;  // under five minutes left: a new one
  EXPECT_EQ(credential.token(), "ya29.sa-2");

  const auto posts = server.seen("POST");
  ASSERT_EQ(posts.size(), 2u);
  EXPECT_EQ(posts[0].path.rfind("/token", 0), 0u);
  const std::string grant = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer";
  EXPECT_EQ(posts[0].body.rfind(grant + "&assertion=", 0), 0u) << posts[0].body;
  const std::string jwt = posts[0].body.substr(grant.size() + 11);
  EXPECT_TRUE(verifies(kp.key.get(), jwt));
}

TEST(GcpCredentials, ARefusedGrantIsAnErrorNamingGooglesCode) {
  replay::LoopbackServer server;
  server.handle = [](const httplib::Request&, httplib::Response& res) {
    res.status = 400;
    res.set_content(R"({"error":"invalid_grant","error_description":"Invalid JWT Signature."})",
                    "application/json");
  };
  aws::CurlTransport transport;
  SettableClock clock;
  ServiceAccountCredential credential(key_for(make_key_pair(), server.url() + "/token"), transport,
                                      clock);
  try {
    credential.token();
    FAIL() << "no error";
  } catch (const GceError& e) {
    EXPECT_EQ(e.code(), "invalid_grant");
    EXPECT_NE(std::string(e.what()).find("Invalid JWT Signature"), std::string::npos);
  }
}

TEST(GcpCredentials, AKeyFileWithoutItsFieldsIsRefusedNamingTheField) {
  try {
    parse_service_account_key(R"({"type":"service_account","client_email":"a@b"})", "key.json");
    FAIL() << "no error";
  } catch (const GceError& e) {
    EXPECT_NE(std::string(e.what()).find("key.json: no private_key"), std::string::npos);
  }
  EXPECT_THROW(parse_service_account_key(R"({"type":"authorized_user"})", "key.json"), GceError);
  EXPECT_THROW(parse_service_account_key("not json", "key.json"), GceError);
  ServiceAccountKey bad;
  bad.client_email = "a@b";
  bad.private_key = "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n";
  EXPECT_THROW(service_account_jwt(bad, kComputeScope, kNow), GceError);
}

TEST(GcpCredentials, TheMetadataServerIsAskedWithMetadataFlavorGoogleAndItsTokenKept) {
  replay::LoopbackServer server;
  server.handle = [](const httplib::Request& req, httplib::Response& res) {
    if (req.path != "/computeMetadata/v1/instance/service-accounts/default/token" ||
        req.get_header_value("Metadata-Flavor") != "Google") {
      res.status = 403;
      return;
    }
    res.set_content(R"({"access_token":"ya29.md","expires_in":3599,"token_type":"Bearer"})",
                    "application/json");
  };
  aws::CurlTransport transport;
  SettableClock clock;
  MetadataServerCredential credential(server.url(), transport, clock);
  EXPECT_EQ(credential.token(), "ya29.md");
  EXPECT_EQ(credential.token(), "ya29.md");
  const auto gets = server.seen("GET");
  ASSERT_EQ(gets.size(), 1u);
  EXPECT_EQ(gets[0].metadata_flavor, "Google");
}

}  // namespace
}  // namespace fitscale::gcp
