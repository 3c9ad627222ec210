// Instance catalogs (`--catalog FILE`): parse_catalog_csv, then build_catalog on what it accepts
// (a parsed catalog must also build: offerings, prices in micro-dollars, allocatable).
#include "fuzz_main.h"
#include "model/catalog.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string_view text = fitscale::fuzz::as_text(data, size);
  fitscale::fuzz::require_contract("catalog.csv", [&] {
    fitscale::build_catalog(fitscale::parse_catalog_csv(text, "catalog.csv"),
                            fitscale::CatalogOptions{});
  });
  return 0;
}
