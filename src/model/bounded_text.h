#pragma once
// Text that came from a user (a pod's annotation, a label, an error quoting either) is cut before
// it is put into a log line, an error message or a Kubernetes Event: a tenant may write 256 KiB
// into one annotation, and nobody reads past the first few hundred bytes anyway.
#include <cstddef>
#include <string>
#include <string_view>

namespace fitscale {

// A value quoted inside a message ("bad duration \"...\"").
inline constexpr std::size_t kQuotedValueLimit = 256;

// `text` unchanged when it has at most `limit` bytes; otherwise its first `limit` bytes (fewer
// when that would split a UTF-8 character) followed by "…(N bytes)", N being the whole length.
std::string bounded_text(std::string_view text, std::size_t limit = kQuotedValueLimit);

}  // namespace fitscale
