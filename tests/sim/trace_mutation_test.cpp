// Job traces are users' own files (`fitscale simulate --trace`): whatever is in them, parse_trace
// returns jobs or throws InputError naming the file (and the line and column), never anything
// else. The same contract as fuzz/trace_fuzz.cpp, on a fixed set of mutations of real traces.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../support/bad_input.h"
#include "sim/trace.h"

namespace fitscale {
namespace {

std::string first_lines(const std::string& rel, int lines) {
  std::ifstream in(std::string(FITSCALE_SOURCE_DIR) + "/" + rel, std::ios::binary);
  std::string out, line;
  for (int i = 0; i < lines && std::getline(in, line); ++i) out += line + "\n";
  return out;
}

void parse(const std::string& text) { parse_trace(text, "trace.csv"); }

TEST(TraceMutation, PhillyTraceMutationsGiveValuesOrInputErrorsNamingTheFile) {
  const std::string seed = first_lines("data/traces/philly-week.csv", 30);
  ASSERT_NO_THROW(parse(seed));
  EXPECT_EQ(bad_input::violations("trace.csv", bad_input::bad_inputs(seed, 3000, 1), parse), "");
}

TEST(TraceMutation, AllColumnsTraceMutationsGiveValuesOrInputErrorsNamingTheFile) {
  const std::string seed =
      "submit_s,job,namespace,replicas,cpu,memory,gpu,gpu_model,duration_s,capacity_type,"
      "checkpoint_interval_s,max_runtime_s\n"
      "0,a,team-a,2,500m,1.5Gi,1,V100,3600.5,on-demand,600,7200\n"
      "10.25,b,team-b,1,4,16e9,0,,60,spot,,\n";
  ASSERT_NO_THROW(parse(seed));
  EXPECT_EQ(bad_input::violations("trace.csv", bad_input::bad_inputs(seed, 2000, 2), parse), "");
}

// Found while writing fuzz/trace_fuzz.cpp (UBSan report on a hand-made input): rounding the largest
// memory quantity up to whole bytes overflowed (undefined behaviour; a negative request in the
// plain build).
TEST(TraceMutation, LargestMemoryQuantityRoundsUpWithoutOverflow) {
  const auto jobs = parse_trace(
      "submit_s,job,namespace,replicas,cpu,memory,gpu,duration_s\n"
      "0,a,team-a,1,1,9223372036854775807m,0,60\n"
      "0,b,team-a,1,1,1001m,0,60\n",
      "trace.csv");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].requests.memory_bytes, 9223372036854776);
  EXPECT_EQ(jobs[1].requests.memory_bytes, 2);
}

}  // namespace
}  // namespace fitscale
