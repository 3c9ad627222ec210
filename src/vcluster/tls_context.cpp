#include "vcluster/tls_context.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

#include "model/error.h"
#include "model/file_text.h"

namespace fitscale::vcluster {
namespace {

// OpenSSL's reason for the last failure ("no start line", "key values mismatch"), clearing
// its error queue so the next call starts clean.
std::string openssl_reason() {
  unsigned long last = 0;
  while (unsigned long e = ERR_get_error()) last = e;
  const char* reason = last ? ERR_reason_error_string(last) : nullptr;
  return reason ? reason : "unknown OpenSSL error";
}

// Every certificate in `pem`; none when it holds no PEM certificate.
int count_certificates(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  int n = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509_free(cert);
    ++n;
  }
  ERR_clear_error();  // the read past the last certificate always "fails"
  return n;
}

}  // namespace

std::string read_certificate_pem(const std::string& path, const std::string& what) {
  std::string pem = read_file_text(path, what, kMaxCredentialFileBytes);
  if (count_certificates(pem) == 0) {
    throw InputError(what + " " + path + ": no PEM certificate in it");
  }
  return pem;
}

void configure_tls(SSL_CTX& ctx, const TlsFiles& files) {
  ERR_clear_error();
  const bool in_memory = files.cert_file.empty();
  const std::string cert_name = in_memory ? "(generated)" : files.cert_file;
  const std::string key_name = in_memory ? "(generated)" : files.key_file;
  const std::string cert_pem =
      in_memory ? files.cert_pem : read_certificate_pem(files.cert_file, "TLS certificate");
  // Parsed here rather than by SSL_CTX_use_PrivateKey_file, which reports a key of another
  // certificate and a file that is no key alike.
  const std::string key_pem =
      in_memory ? files.key_pem
                : read_file_text(files.key_file, "TLS private key", kMaxCredentialFileBytes);
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())), &BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
  if (!key) {
    throw InputError("TLS private key " + key_name + ": not an unencrypted PEM private key (" +
                     openssl_reason() + ")");
  }
  SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION);
  // The first certificate serves, the rest is its chain (what use_certificate_chain_file does).
  std::unique_ptr<BIO, decltype(&BIO_free)> certs(
      BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())), &BIO_free);
  X509* leaf = PEM_read_bio_X509(certs.get(), nullptr, nullptr, nullptr);
  if (leaf == nullptr || SSL_CTX_use_certificate(&ctx, leaf) != 1) {
    if (leaf) X509_free(leaf);
    throw InputError("TLS certificate " + cert_name + ": " + openssl_reason());
  }
  X509_free(leaf);
  while (X509* extra = PEM_read_bio_X509(certs.get(), nullptr, nullptr, nullptr)) {
    SSL_CTX_add0_chain_cert(&ctx, extra);  // owned by the context now
  }
  ERR_clear_error();  // the read past the last certificate always "fails"
  if (SSL_CTX_use_PrivateKey(&ctx, key.get()) != 1 || SSL_CTX_check_private_key(&ctx) != 1) {
    throw InputError("TLS private key " + key_name + ": does not belong to the certificate " +
                     cert_name + " (" + openssl_reason() + ")");
  }
  if (files.client_ca_file.empty()) return;
  read_certificate_pem(files.client_ca_file, "client CA");
  if (SSL_CTX_load_verify_locations(&ctx, files.client_ca_file.c_str(), nullptr) != 1) {
    throw InputError("client CA " + files.client_ca_file + ": " + openssl_reason());
  }
  // Names the acceptable issuers in the handshake, so a client with several certificates can
  // pick the right one.
  if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(files.client_ca_file.c_str())) {
    SSL_CTX_set_client_CA_list(&ctx, names);
  }
  // VERIFY_PEER without FAIL_IF_NO_PEER_CERT: a certificate is asked for, checked when given,
  // and optional; the HTTP layer then refuses a request that has neither it nor a token.
  SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, nullptr);
  // OpenSSL refuses to resume a session with peer verification on unless the context has an id.
  static constexpr unsigned char kSessionContext[] = "fitscale-vcluster";
  SSL_CTX_set_session_id_context(&ctx, kSessionContext, sizeof kSessionContext - 1);
}

std::string verify_against(const std::string& cert_pem, const std::string& ca_pem) {
  auto read_all = [](const std::string& pem) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(
        BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
    STACK_OF(X509)* certs = sk_X509_new_null();
    while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
      sk_X509_push(certs, cert);
    }
    ERR_clear_error();
    return std::unique_ptr<STACK_OF(X509), void (*)(STACK_OF(X509)*)>(
        certs, [](STACK_OF(X509) * s) { sk_X509_pop_free(s, X509_free); });
  };
  auto chain = read_all(cert_pem);
  auto cas = read_all(ca_pem);
  if (sk_X509_num(chain.get()) == 0) return "no certificate";
  std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)> store(X509_STORE_new(), &X509_STORE_free);
  for (int i = 0; i < sk_X509_num(cas.get()); ++i)
    X509_STORE_add_cert(store.get(), sk_X509_value(cas.get(), i));
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> ctx(X509_STORE_CTX_new(),
                                                                      &X509_STORE_CTX_free);
  X509_STORE_CTX_init(ctx.get(), store.get(), sk_X509_value(chain.get(), 0), chain.get());
  if (X509_verify_cert(ctx.get()) == 1) return "";
  return X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get()));
}

bool peer_certificate_verified(const SSL* ssl) {
  if (ssl == nullptr) return false;
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) return false;
  X509_free(cert);
  return SSL_get_verify_result(ssl) == X509_V_OK;
}

}  // namespace fitscale::vcluster
