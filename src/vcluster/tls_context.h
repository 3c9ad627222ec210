#pragma once
// HTTPS for the virtual cluster: an OpenSSL server context from PEM files, and who a TLS peer
// proved to be. Kept apart from http_server.cpp so the plain-HTTP path has no OpenSSL in it.
#include <openssl/ssl.h>

#include <string>

namespace fitscale::vcluster {

struct TlsFiles {
  std::string cert_file;       // serving certificate, optionally followed by its chain (PEM)
  std::string key_file;        // its private key (PEM, unencrypted)
  std::string client_ca_file;  // CA bundle for client certificates; empty = none asked for
  // In-memory alternative to cert_file/key_file (the generated pair of self_signed_tls.h);
  // used when cert_file is empty.
  std::string cert_pem;
  std::string key_pem;
  bool enabled() const { return !cert_file.empty() || !cert_pem.empty(); }
};

// Loads the files into `ctx` (TLS 1.2 or later). With a client CA the server asks every client
// for a certificate but lets one without a certificate finish the handshake, as kube-apiserver
// does, so a bearer token can still authenticate it; a certificate the CA did not sign fails the
// handshake. Throws InputError naming the file that cannot be read or is not what it should be.
void configure_tls(SSL_CTX& ctx, const TlsFiles& files);

// The PEM text of `path` after checking it holds at least one certificate. Throws InputError
// naming `what` and the path.
std::string read_certificate_pem(const std::string& path, const std::string& what);

// Empty when the first certificate in `cert_pem` (a serving certificate, then its chain)
// verifies against the CA certificates in `ca_pem`; otherwise OpenSSL's reason.
std::string verify_against(const std::string& cert_pem, const std::string& ca_pem);

// Whether the peer on `ssl` presented a certificate that verified against the client CA.
bool peer_certificate_verified(const SSL* ssl);

}  // namespace fitscale::vcluster
