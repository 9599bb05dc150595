// The EU math library: log2, log, exp2, exp, pow, cbrt, sqrt and division in binary32 and
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

namespace tessera::eu {

// X(name, arity, meaning)
#define TESSERA_EU_MATH_FUNCTIONS(X)          \
  X(log2, 1, "base-2 logarithm")              \
  X(log, 1, "natural logarithm")              \
  X(exp2, 1, "2^x")                           \
  X(exp, 1, "e^x")                            \
  X(pow, 2, "x^y, IEEE 754 powr semantics")   \
  X(cbrt, 1, "cube root")                     \
  X(sqrt, 1, "square root")                   \
  X(div, 2, "x / y")

enum class MathFunction : uint8_t {
#define TESSERA_X(name, arity, desc) name,
  TESSERA_EU_MATH_FUNCTIONS(TESSERA_X)
#undef TESSERA_X
};

inline constexpr int kMathFunctionCount = 0
#define TESSERA_X(name, arity, desc) +1
    TESSERA_EU_MATH_FUNCTIONS(TESSERA_X)
#undef TESSERA_X
    ;

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
float div(float x, float y, EuCounters& k);
double div(double x, double y, EuCounters& k);
}  // namespace baseline

// Dispatch by function (y is ignored by one-operand functions); branchy selects the baseline.
float evaluate(MathFunction f, bool branchy, float x, float y, EuCounters& k);
double evaluate(MathFunction f, bool branchy, double x, double y, EuCounters& k);

// Dynamic instructions a call cost: every opcode executed plus the baseline's integer ops and
// branches.
uint64_t dynamic_instructions(const EuCounters& k);

}  // namespace tessera::eu
