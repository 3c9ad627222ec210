#include "vcluster/self_signed_tls.h"

#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>
#include <stdexcept>

namespace fitscale::vcluster {
namespace {

using KeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using CertPtr = std::unique_ptr<X509, decltype(&X509_free)>;

[[noreturn]] void fail(const std::string& what) {
  ERR_clear_error();
  throw std::runtime_error("cannot generate the cluster's TLS certificate: " + what);
}

KeyPtr new_key() {
  KeyPtr key(EVP_EC_gen("P-256"), &EVP_PKEY_free);
  if (!key) fail("EC key generation");
  return key;
}

std::string key_pem(EVP_PKEY* key) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  if (PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
    fail("PEM encoding of the key");
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

std::string cert_pem(X509* cert) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  if (PEM_write_bio_X509(bio.get(), cert) != 1) fail("PEM encoding of the certificate");
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

void add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) fail("extension " + value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// A certificate for `key` named `cn`, valid [now - 1 h, now + 365 d], with a random serial;
// issued by `issuer` (itself when null: a CA). Signed by the caller.
CertPtr new_certificate(EVP_PKEY* key, const std::string& cn, X509* issuer, Time now) {
  CertPtr cert(X509_new(), &X509_free);
  if (!cert) fail("X509_new");
  X509_set_version(cert.get(), 2);  // v3
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) fail("random serial");
  serial[0] &= 0x7f;  // positive
  std::unique_ptr<BIGNUM, decltype(&BN_free)> bn(BN_bin2bn(serial, sizeof serial, nullptr),
                                                 &BN_free);
  BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get()));
  time_t t = static_cast<time_t>(now);
  X509_time_adj_ex(X509_getm_notBefore(cert.get()), 0, -3600, &t);
  X509_time_adj_ex(X509_getm_notAfter(cert.get()), 365, 0, &t);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name);
  X509_set_pubkey(cert.get(), key);
  X509* signer = issuer ? issuer : cert.get();
  if (issuer == nullptr) {
    add_extension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    add_extension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
    add_extension(cert.get(), signer, NID_subject_key_identifier, "hash");
  } else {
    add_extension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    add_extension(cert.get(), signer, NID_key_usage, "critical,digitalSignature");
    add_extension(cert.get(), signer, NID_ext_key_usage, "serverAuth");
    add_extension(cert.get(), signer, NID_subject_key_identifier, "hash");
    add_extension(cert.get(), signer, NID_authority_key_identifier, "keyid:always");
  }
  return cert;
}

void sign(X509* cert, EVP_PKEY* key) {
  if (X509_sign(cert, key, EVP_sha256()) == 0) fail("signing");
}

bool is_ip(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

GeneratedTls generate_serving_tls(const std::vector<std::string>& hosts, Time now) {
  KeyPtr ca_key = new_key();
  CertPtr ca = new_certificate(ca_key.get(), "fitscale-cluster-ca", nullptr, now);
  sign(ca.get(), ca_key.get());

  KeyPtr key = new_key();
  CertPtr cert = new_certificate(key.get(), "fitscale-cluster", ca.get(), now);
  std::string san;
  for (const auto& h : hosts) {
    if (h.empty()) continue;
    san += (san.empty() ? "" : ",") + std::string(is_ip(h) ? "IP:" : "DNS:") + h;
  }
  if (!san.empty()) add_extension(cert.get(), ca.get(), NID_subject_alt_name, san);
  sign(cert.get(), ca_key.get());
  return {cert_pem(ca.get()), cert_pem(cert.get()), key_pem(key.get())};
}

}  // namespace fitscale::vcluster
