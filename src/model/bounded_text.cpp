#include "model/bounded_text.h"

namespace fitscale {

std::string bounded_text(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t cut = limit;
  // Back up over UTF-8 continuation bytes (10xxxxxx) so the cut never splits a character.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  std::string out(text.substr(0, cut));
  out += "\xE2\x80\xA6(";  // U+2026 HORIZONTAL ELLIPSIS
  out += std::to_string(text.size());
  out += " bytes)";
  return out;
}

}  // namespace fitscale
