// Catalogs and config files are users' own files: whatever is in them, the parsers return a
// value or throw InputError naming the file (and the line and field), never anything else. The
// same contract as fuzz/catalog_fuzz.cpp and fuzz/config_fuzz.cpp, on a fixed set of mutations
// of the shipped files.
#include "../support/bad_input.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../support/config_use.h"
#include "model/catalog.h"
#include "model/config.h"
#include "model/error.h"

namespace fitscale {
namespace {

std::string read(const std::string& rel, int max_lines = 1 << 30) {
  std::ifstream in(std::string(FITSCALE_SOURCE_DIR) + "/" + rel, std::ios::binary);
  std::string out, line;
  for (int i = 0; i < max_lines && std::getline(in, line); ++i) out += line + "\n";
  return out;
}

void catalog(const std::string& text) {
  build_catalog(parse_catalog_csv(text, "catalog.csv"), CatalogOptions{});
}
void config(const std::string& text) { bad_input::read_and_use_config(text); }

TEST(CatalogMutation, ShippedCatalogMutationsGiveValuesOrInputErrorsNamingTheFile) {
  // The header, CPU types and the p3 GPU types: every column in use.
  std::string seed = read("data/aws-us-east-1.csv", 20);
  for (const char* row : {"p3.2xlarge,amd64,8,62464,1,V100,16384,3.060000,0.918,3,15-20%\n",
                          "\"quoted,name\",amd64,2,4096,,,,\"0.1\",,,\n"}) {
    seed += row;
  }
  ASSERT_NO_THROW(catalog(seed));
  EXPECT_EQ(bad_input::violations("catalog.csv", bad_input::bad_inputs(seed, 3000, 3), catalog),
            "");
}

std::string catalog_error(const std::string& row) {
  try {
    catalog(
        "instance_type,arch,vcpu,memory_mib,gpu,gpu_model,gpu_memory_mib,on_demand_usd_per_hour,"
        "spot_usd_per_hour\n" +
        row + "\n");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// Found by fuzz/catalog_fuzz.cpp: sizes and prices that parsed but overflowed the milli-CPU,
// byte and micro-dollar arithmetic of build_catalog (undefined behaviour; garbage capacity).
TEST(CatalogMutation, SizesAndPricesTooLargeForTheArithmeticAreRefusedWithTheirColumn) {
  EXPECT_EQ(catalog_error("x,amd64,9223372036854775807,1024,0,,,0.1,"),
            "catalog.csv:2: column vcpu: must be at most 100000, got 9223372036854775807");
  EXPECT_EQ(catalog_error("x,amd64,2,9000000000000000,0,,,0.1,"),
            "catalog.csv:2: column memory_mib: must be at most 100000000, got 9000000000000000");
  EXPECT_EQ(catalog_error("x,amd64,2,1024,4611686018427387904,V100,,0.1,"),
            "catalog.csv:2: column gpu: must be at most 1000, got 4611686018427387904");
  EXPECT_EQ(
      catalog_error("x,amd64,2,1024,1,V100,9000000000000000,0.1,"),
      "catalog.csv:2: column gpu_memory_mib: must be at most 100000000, got 9000000000000000");
  EXPECT_EQ(catalog_error("x,amd64,2,1024,0,,,1e300,"),
            "catalog.csv:2: column on_demand_usd_per_hour: must be at most 100000 USD per hour, "
            "got 1e300");
  EXPECT_EQ(
      catalog_error("x,amd64,2,1024,0,,,0.1,9.2e18"),
      "catalog.csv:2: column spot_usd_per_hour: must be at most 100000 USD per hour, got 9.2e18");
  // The largest real types still fit (u-24tb1.metal: 448 vCPUs, 24 TiB).
  EXPECT_EQ(catalog_error("u-24tb1.metal,amd64,448,25165824,0,,,218.4,"), "(no error)");
}

TEST(ConfigMutation, ExampleConfigMutationsGiveValuesOrInputErrorsNamingTheFile) {
  for (const char* file : {"examples/config.yaml", "fuzz/seeds/config/every-section.yaml"}) {
    SCOPED_TRACE(file);
    const std::string seed = read(file);
    ASSERT_NO_THROW(config(seed));
    EXPECT_EQ(bad_input::violations("config.yaml", bad_input::bad_inputs(seed, 1500, 4), config),
              "");
  }
}

// Found while writing fuzz/config_fuzz.cpp (UBSan report on a hand-made input): a maxPods that
// parsed but overflowed the memory reservation (11 MiB a pod) when the catalog was built.
TEST(ConfigMutation, MaxPodsTooLargeForTheReservationIsRefusedWithItsKey) {
  std::string error = "(no error)";
  try {
    config("allocatable: {maxPods: 9223372036854775807}\n");
  } catch (const InputError& e) {
    error = e.what();
  }
  EXPECT_EQ(
      error,
      "config.yaml:1: allocatable.maxPods: must be at most 100000, got \"9223372036854775807\"");
  EXPECT_NO_THROW(config("allocatable: {maxPods: 100000}\n"));
}

}  // namespace
}  // namespace fitscale
