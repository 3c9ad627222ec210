// EC2, Auto Scaling and SQS answers (XML via pugixml, event bodies via nlohmann-json): see
// tests/support/aws_answer.h for what is read and what must hold.
#include "aws_answer.h"
#include "fuzz_main.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view text = fitscale::fuzz::as_text(data, size);
  fitscale::fuzz::require_contract("", [&] { fitscale::bad_input::read_aws_answer(text); });
  return 0;
}
