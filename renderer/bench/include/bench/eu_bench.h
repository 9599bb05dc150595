// `tessera bench eu`: the execution unit's math library measured on the modelled datapath.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

// One function in one precision.
struct EuFunctionReport {
  std::string name;                          // "log2", "log", "exp2", "exp", "pow", "cbrt", "sqrt", "rsqrt", "div"
  std::string precision;                     // "binary32" or "binary64"
  double branch_free_instructions_per_call;  // dynamic EU instructions, branch-free library
  double branchy_instructions_per_call;      // FP instructions + integer ops + branches, baseline
  double max_ulp;  // vs a long double reference (infinite when a special value came out wrong)
  double mean_ulp;
  double results_per_second;         // branch-free results per second of model time on one core
  double native_results_per_second;  // the same results (bit-identical) on the native fast path
                                     // (tessera/eu_shader_math.h), one core
  double sweep_max_ulp = 0;          // max ULP over the accuracy sweep (domain inputs + hard cases near
                                     // 1, range limits, subnormals), native path, long double reference
  int sweep_samples = 0;
};

// Runs every function on samples_per_function deterministic inputs (5% special values) drawn
// from seed, in binary32 and binary64, through both implementations (instruction counts, max and
// mean ULP, model throughput), times the native fast path on the same inputs, and sweeps
// accuracy_samples further inputs (the unit test's MPFR-sweep mix) on the native path.
std::vector<EuFunctionReport> run_eu_bench(int samples_per_function, uint64_t seed, int accuracy_samples = 0);

}  // namespace tessera
