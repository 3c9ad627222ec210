#include "vcluster/list_pages.h"

#include <openssl/evp.h>

#include <algorithm>

#include "vcluster/api_error.h"
#include "vcluster/object_meta.h"

namespace fitscale::vcluster {
namespace {

std::string storage_key(const nlohmann::json& obj) {
  return namespace_of(obj) + "/" + name_of(obj);  // as ObjectStore orders its objects
}

ApiError bad_continue(const std::string& text) {
  return bad_request("continue key is not valid: \"" + text.substr(0, 64) + "\"");
}

}  // namespace

std::string encode_continue(const ContinueToken& token) {
  // Opaque to clients, as kube-apiserver's: base64 of a small JSON document.
  const std::string raw = nlohmann::json{
      {"v", "fitscale.io/v1"},
      {"rv", token.resource_version},
      {"start",
       token.start_after}}.dump();
  std::string out(4 * ((raw.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(raw.data()),
                                static_cast<int>(raw.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

ContinueToken decode_continue(const std::string& text) {
  if (text.empty() || text.size() % 4 != 0 || text.size() > 4096) throw bad_continue(text);
  std::string raw(3 * text.size() / 4, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(raw.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) throw bad_continue(text);
  raw.resize(static_cast<std::size_t>(n));
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();  // EVP pads with zero bytes
  try {
    const auto j = nlohmann::json::parse(raw);
    if (j.value("v", "") != "fitscale.io/v1") throw bad_continue(text);
    return ContinueToken{j.at("rv").get<std::uint64_t>(), j.at("start").get<std::string>()};
  } catch (const nlohmann::json::exception&) {
    throw bad_continue(text);
  }
}

SharedPage shared_page_of(std::vector<StoredObject> items, std::uint64_t listed_rv,
                          std::size_t limit, const std::string& continue_text,
                          std::uint64_t oldest_rv) {
  SharedPage page;
  page.resource_version = listed_rv;
  std::size_t first = 0;
  if (!continue_text.empty()) {
    const ContinueToken token = decode_continue(continue_text);
    if (token.resource_version < oldest_rv) {
      throw ApiError(410, "Expired",
                     "The provided continue parameter is too old to display a consistent list "
                     "result. You can start a new list without the continue parameter.");
    }
    page.resource_version = token.resource_version;
    // Sorted by storage key: the page starts after the token's key (a binary search, so the
    // 100th page of 50,000 pods costs what the first does).
    first =
        static_cast<std::size_t>(std::partition_point(items.begin(), items.end(),
                                                      [&](const StoredObject& o) {
                                                        return storage_key(*o) <= token.start_after;
                                                      }) -
                                 items.begin());
  }
  std::size_t end = items.size();
  if (limit > 0 && items.size() - first > limit) end = first + limit;
  if (end < items.size()) {
    page.continue_token =
        encode_continue(ContinueToken{page.resource_version, storage_key(*items[end - 1])});
    page.remaining = items.size() - end;
  }
  items.erase(items.begin() + static_cast<long>(end), items.end());
  items.erase(items.begin(), items.begin() + static_cast<long>(first));
  page.items = std::move(items);
  return page;
}

ListPage page_of(const std::vector<StoredObject>& items, std::uint64_t listed_rv, std::size_t limit,
                 const std::string& continue_text, std::uint64_t oldest_rv) {
  SharedPage shared = shared_page_of(items, listed_rv, limit, continue_text, oldest_rv);
  ListPage page;
  page.resource_version = shared.resource_version;
  page.continue_token = std::move(shared.continue_token);
  page.remaining = shared.remaining;
  page.items.reserve(shared.items.size());
  for (const auto& o : shared.items) page.items.push_back(*o);
  return page;
}

}  // namespace fitscale::vcluster
