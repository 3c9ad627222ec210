#pragma once
// Paged lists (limit / continue) as kube-apiserver serves them. The continue token carries the
// resourceVersion of the first page and the storage key of the last object returned; the next
// page starts after that key, so an object that exists from the first page to the last is
// returned exactly once whatever is created or deleted in between (the offset the server used
// before skipped objects whenever an earlier one was deleted). Later pages report the first
// page's resourceVersion. Unlike etcd, the store keeps no old snapshots: objects changed between
// pages are returned as they are now. A token older than the store's watch history gets
// 410 Expired, as a compacted etcd revision does, and the client lists again from the start.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "vcluster/object_store.h"

namespace fitscale::vcluster {

struct ContinueToken {
  std::uint64_t resource_version = 0;
  std::string start_after;  // storage key "namespace/name" of the last object returned
};

std::string encode_continue(const ContinueToken& token);
// Throws ApiError 400 for a token this server did not write.
ContinueToken decode_continue(const std::string& text);

struct ListPage {
  std::vector<nlohmann::json> items;
  std::uint64_t resource_version = 0;  // what the list's metadata reports
  std::optional<std::string> continue_token;
  std::size_t remaining = 0;  // remainingItemCount, when continue_token is set
};

// The same page without copying its objects.
struct SharedPage {
  std::vector<StoredObject> items;
  std::uint64_t resource_version = 0;
  std::optional<std::string> continue_token;
  std::size_t remaining = 0;
};
SharedPage shared_page_of(std::vector<StoredObject> items, std::uint64_t listed_rv,
                          std::size_t limit, const std::string& continue_text,
                          std::uint64_t oldest_rv);

// `items` are the matching objects in storage-key order, listed at `listed_rv`; `limit` 0 = all;
// `continue_text` empty = first page. `oldest_rv` is the oldest version the store can still
// speak for (410 Expired for a token older than that). Only the page's objects are copied.
ListPage page_of(const std::vector<StoredObject>& items, std::uint64_t listed_rv, std::size_t limit,
                 const std::string& continue_text, std::uint64_t oldest_rv);

}  // namespace fitscale::vcluster
