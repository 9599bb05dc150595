// The EU math library: log2, log, exp2, exp, pow, cbrt, sqrt, rsqrt and division in binary32 and
// binary64, built only from the modelled FMA-datapath instructions (fma/add/mul, getexp,
// getmant, scalef, getexpdiff, getmantdiv), so every call is counted by the caller's EuCounters.
//
// Two implementations of each function:
// - eu::math: branch-free (spec "Branch-free algorithms"): NaN, infinities, zeros and
//   subnormals come out right through the instructions' own special-case handling; there is no
//   branch on the value, so 16 SIMD lanes never diverge.
// - eu::baseline: the conventional frexp/ldexp-style code with explicit special-case branches,
//   integer field extraction/insertion (counted as eu.math.integer_ops) and branches (counted as
//   eu.math.branches), sharing the same polynomial cores. It is the comparison point for
//   `tessera bench eu`.
// pow follows IEEE 754-2008 powr (exp(y*log x)): negative x, powr(1, +-inf), powr(0, 0),
// powr(inf, 0) are NaN. docs/eu.md has algorithms, accuracy and instruction counts.
#pragma once

#include <cstdint>

#include "eu/eu_counters.h"
#include "tessera/eu_shader_math.h"

namespace tessera::eu {

// The function list (TESSERA_EU_MATH_FUNCTIONS) lives in the public tessera/eu_shader_math.h.
using MathFunction = EuMathFunction;
inline constexpr int kMathFunctionCount = kEuMathFunctionCount;

const char* math_function_name(MathFunction f);
int math_function_arity(MathFunction f);  // 1 or 2 operands

namespace math {  // branch-free
float log2(float x, EuCounters& k);
double log2(double x, EuCounters& k);
float log(float x, EuCounters& k);
double log(double x, EuCounters& k);
float exp2(float x, EuCounters& k);
double exp2(double x, EuCounters& k);
float exp(float x, EuCounters& k);
double exp(double x, EuCounters& k);
float pow(float x, float y, EuCounters& k);
double pow(double x, double y, EuCounters& k);
float cbrt(float x, EuCounters& k);
double cbrt(double x, EuCounters& k);
float sqrt(float x, EuCounters& k);
double sqrt(double x, EuCounters& k);
float rsqrt(float x, EuCounters& k);
double rsqrt(double x, EuCounters& k);
float div(float x, float y, EuCounters& k);
double div(double x, double y, EuCounters& k);
}  // namespace math

namespace baseline {  // branchy frexp/ldexp-style reference implementation
float log2(float x, EuCounters& k);
double log2(double x, EuCounters& k);
float log(float x, EuCounters& k);
double log(double x, EuCounters& k);
float exp2(float x, EuCounters& k);
double exp2(double x, EuCounters& k);
float exp(float x, EuCounters& k);
double exp(double x, EuCounters& k);
float pow(float x, float y, EuCounters& k);
double pow(double x, double y, EuCounters& k);
float cbrt(float x, EuCounters& k);
double cbrt(double x, EuCounters& k);
float sqrt(float x, EuCounters& k);
double sqrt(double x, EuCounters& k);
float rsqrt(float x, EuCounters& k);
double rsqrt(double x, EuCounters& k);
float div(float x, float y, EuCounters& k);
double div(double x, double y, EuCounters& k);
}  // namespace baseline

// Dispatch by function (y is ignored by one-operand functions); branchy selects the baseline.
float evaluate(MathFunction f, bool branchy, float x, float y, EuCounters& k);
double evaluate(MathFunction f, bool branchy, double x, double y, EuCounters& k);

// Dynamic instructions a call cost: every opcode executed plus the baseline's integer ops and
// branches.
uint64_t dynamic_instructions(const EuCounters& k);

// The native ISA (native_isa.h) running the same algorithms: bit-identical to math::, no
// counting. The public entry points are tessera::eu_fast (tessera/eu_shader_math.h).
float evaluate_native(MathFunction f, float x, float y);
double evaluate_native(MathFunction f, double x, double y);

// The counters one branch-free call of f costs in binary32 (single) or binary64, computed once
// on the model and cached (thread-safe). Opcode counts are the same for every input (no
// data-dependent control flow; tested on 1M inputs per function, specials included); block
// activations depend on the data (zero and special operands bypass part of the main path), so
// they are the rounded mean over fixed ordinary operands.
const EuCounters& call_profile(MathFunction f, bool single);
// Dynamic instructions one binary32 call of f costs with the branchy baseline, the mean over
// the same ordinary operands (the baseline's cost depends on the data through its branches).
uint64_t baseline_call_instructions(MathFunction f);

// calls x call_profile for every binary32 function the accumulator counted.
EuCounters to_counters(const EuShaderMath& calls);

}  // namespace tessera::eu
