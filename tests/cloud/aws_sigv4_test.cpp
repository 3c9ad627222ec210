// SigV4 against AWS's published examples (the Signature Version 4 test suite, credentials
// AKIDEXAMPLE, 2015-08-30T12:36:00Z, and the IAM ListUsers example of the SigV4 docs). A request
// signed differently from these is rejected by every AWS endpoint.
#include <gtest/gtest.h>

#include "cloud/aws/sigv4.h"

namespace fitscale::aws {
namespace {

const Credentials kSuite{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "", "test"};
constexpr Time k20150830T123600Z = 1440938160;

RequestToSign suite_request(std::string method) {
  RequestToSign r;
  r.method = std::move(method);
  r.headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}};
  return r;
}

std::string expected(std::string signed_headers, std::string signature,
                     std::string service = "service") {
  return "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/" + service +
         "/aws4_request, SignedHeaders=" + signed_headers + ", Signature=" + signature;
}

TEST(SigV4, AmzDateIsBasicIso8601Utc) {
  EXPECT_EQ(amz_date(k20150830T123600Z), "20150830T123600Z");
}

TEST(SigV4, GetVanilla) {
  auto r = suite_request("GET");
  EXPECT_EQ(canonical_request(r),
            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sign(r, kSuite, "us-east-1", "service", k20150830T123600Z),
            expected("host;x-amz-date",
                     "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"));
}

TEST(SigV4, AddsTheDateHeaderFromTheGivenTime) {
  RequestToSign r;
  r.method = "GET";
  r.headers = {{"Host", "example.amazonaws.com"}};
  EXPECT_EQ(sign(r, kSuite, "us-east-1", "service", k20150830T123600Z),
            expected("host;x-amz-date",
                     "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"));
  ASSERT_EQ(r.headers.size(), 2u);
  EXPECT_EQ(r.headers[1].first, "X-Amz-Date");
  EXPECT_EQ(r.headers[1].second, "20150830T123600Z");
}

TEST(SigV4, PostXWwwFormUrlencoded) {
  auto r = suite_request("POST");
  r.headers.insert(r.headers.begin(), {"Content-Type", "application/x-www-form-urlencoded"});
  r.payload = "Param1=value1";
  EXPECT_EQ(sign(r, kSuite, "us-east-1", "service", k20150830T123600Z),
            expected("content-type;host;x-amz-date",
                     "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"));
}

TEST(SigV4, QueryParametersAreSortedByName) {
  auto r = suite_request("GET");
  r.query = {{"Param2", "value2"}, {"Param1", "value1"}};
  EXPECT_EQ(sign(r, kSuite, "us-east-1", "service", k20150830T123600Z),
            expected("host;x-amz-date",
                     "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"));
}

TEST(SigV4, UnreservedCharactersAreNotEncoded) {
  auto r = suite_request("GET");
  const std::string u = "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  r.query = {{u, u}};
  EXPECT_EQ(sign(r, kSuite, "us-east-1", "service", k20150830T123600Z),
            expected("host;x-amz-date",
                     "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"));
}

TEST(SigV4, HeaderValuesAreTrimmedAndSpacesCollapsed) {
  auto r = suite_request("GET");
  r.headers.insert(r.headers.begin() + 1, {"My-Header1", " value1"});
  r.headers.insert(r.headers.begin() + 2, {"My-Header2", " \"a   b   c\""});
  EXPECT_EQ(sign(r, kSuite, "us-east-1", "service", k20150830T123600Z),
            expected("host;my-header1;my-header2;x-amz-date",
                     "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"));
}

TEST(SigV4, SessionTokenIsSentAndSigned) {
  auto creds = kSuite;
  creds.session_token = "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267";
  auto r = suite_request("GET");
  EXPECT_EQ(sign(r, creds, "us-east-1", "service", k20150830T123600Z),
            expected("host;x-amz-date;x-amz-security-token",
                     "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8"));
  EXPECT_EQ(r.headers.back().first, "X-Amz-Security-Token");
  EXPECT_EQ(r.headers.back().second, creds.session_token);
}

// The worked example of the SigV4 documentation: IAM ListUsers, every intermediate value.
TEST(SigV4, IamListUsersDocumentationExample) {
  RequestToSign r;
  r.method = "GET";
  r.query = {{"Action", "ListUsers"}, {"Version", "2010-05-08"}};
  r.headers = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"},
               {"Host", "iam.amazonaws.com"},
               {"X-Amz-Date", "20150830T123600Z"}};
  const auto creq = canonical_request(r);
  EXPECT_EQ(creq,
            "GET\n/\nAction=ListUsers&Version=2010-05-08\n"
            "content-type:application/x-www-form-urlencoded; charset=utf-8\n"
            "host:iam.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "content-type;host;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex(creq), "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
  EXPECT_EQ(
      string_to_sign("20150830T123600Z", credential_scope("20150830", "us-east-1", "iam"), creq),
      "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/iam/aws4_request\n"
      "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
  EXPECT_EQ(hex_encode(signing_key(kSuite.secret_access_key, "20150830", "us-east-1", "iam")),
            "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9");
  EXPECT_EQ(sign(r, kSuite, "us-east-1", "iam", k20150830T123600Z),
            expected("content-type;host;x-amz-date",
                     "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7", "iam"));
}

TEST(SigV4, AnotherSecretGivesAnotherSignature) {
  auto a = suite_request("GET");
  auto b = suite_request("GET");
  auto other = kSuite;
  other.secret_access_key = "not-the-secret";
  EXPECT_NE(sign(a, kSuite, "us-east-1", "service", k20150830T123600Z),
            sign(b, other, "us-east-1", "service", k20150830T123600Z));
}

TEST(SigV4, UriEncodeKeepsSlashOnlyInPaths) {
  EXPECT_EQ(uri_encode("a b/c+d=e", false), "a%20b%2Fc%2Bd%3De");
  EXPECT_EQ(uri_encode("/a b/c", true), "/a%20b/c");
}

}  // namespace
}  // namespace fitscale::aws
