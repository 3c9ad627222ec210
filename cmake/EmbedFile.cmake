# Script mode: writes OUT, a C++ source holding IN's bytes as fitscale::embedded::SYMBOL.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR nbytes "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," body "${hex}")
file(WRITE "${OUT}" "// Generated from ${IN}; do not edit.\n#include <string_view>\nnamespace fitscale::embedded {\nstatic const char kData[] = {${body} 0};\nextern const std::string_view ${SYMBOL};\nconst std::string_view ${SYMBOL}(kData, ${nbytes});\n}  // namespace fitscale::embedded\n")
