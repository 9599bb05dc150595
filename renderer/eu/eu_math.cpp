// The branch-free math library on the modelled datapath: the algorithms of eu_math_impl.h
// instantiated with EuCounters (every instruction runs through fma_datapath and is counted), and
// the dispatch helpers. The native instantiation is in eu_shader_math.cpp.
#include "eu/eu_math.h"

#include "eu/eu_math_impl.h"

namespace tessera::eu {

namespace math {
float log2(float x, EuCounters& k) { return algo::log2_bf(x, k); }
double log2(double x, EuCounters& k) { return algo::log2_bf(x, k); }
float log(float x, EuCounters& k) { return algo::log_bf(x, k); }
double log(double x, EuCounters& k) { return algo::log_bf(x, k); }
float exp2(float x, EuCounters& k) { return algo::exp2_bf(x, k); }
double exp2(double x, EuCounters& k) { return algo::exp2_bf(x, k); }
float exp(float x, EuCounters& k) { return algo::exp_bf(x, k); }
double exp(double x, EuCounters& k) { return algo::exp_bf(x, k); }
float pow(float x, float y, EuCounters& k) { return algo::pow_bf(x, y, k); }
double pow(double x, double y, EuCounters& k) { return algo::pow_bf(x, y, k); }
float cbrt(float x, EuCounters& k) { return algo::cbrt_bf(x, k); }
double cbrt(double x, EuCounters& k) { return algo::cbrt_bf(x, k); }
float sqrt(float x, EuCounters& k) { return algo::sqrt_bf(x, k); }
double sqrt(double x, EuCounters& k) { return algo::sqrt_bf(x, k); }
float rsqrt(float x, EuCounters& k) { return algo::rsqrt_bf(x, k); }
double rsqrt(double x, EuCounters& k) { return algo::rsqrt_bf(x, k); }
float div(float x, float y, EuCounters& k) { return algo::div_bf(x, y, k); }
double div(double x, double y, EuCounters& k) { return algo::div_bf(x, y, k); }
}  // namespace math

namespace {
constexpr const char* kNames[] = {
#define TESSERA_X(name, arity, desc) #name,
    TESSERA_EU_MATH_FUNCTIONS(TESSERA_X)
#undef TESSERA_X
};
constexpr int kArity[] = {
#define TESSERA_X(name, arity, desc) arity,
    TESSERA_EU_MATH_FUNCTIONS(TESSERA_X)
#undef TESSERA_X
};

template <class T>
T evaluate_t(MathFunction f, bool branchy, T x, T y, EuCounters& k) {
  switch (f) {
// clang-format off
#define TESSERA_X(name, arity, desc)                                    \
  case MathFunction::name:                                              \
    if constexpr (arity == 1) {                                         \
      return branchy ? baseline::name(x, k) : math::name(x, k);         \
    } else {                                                            \
      return branchy ? baseline::name(x, y, k) : math::name(x, y, k);   \
    }
// clang-format on
    TESSERA_EU_MATH_FUNCTIONS(TESSERA_X)
#undef TESSERA_X
  }
  return x;
}
}  // namespace

const char* math_function_name(MathFunction f) { return kNames[size_t(f)]; }
int math_function_arity(MathFunction f) { return kArity[size_t(f)]; }

float evaluate(MathFunction f, bool branchy, float x, float y, EuCounters& k) {
  return evaluate_t(f, branchy, x, y, k);
}
double evaluate(MathFunction f, bool branchy, double x, double y, EuCounters& k) {
  return evaluate_t(f, branchy, x, y, k);
}

uint64_t dynamic_instructions(const EuCounters& k) {
  uint64_t n = k[EuCounters::branches] + k[EuCounters::integer_ops];
  for (uint64_t c : k.instructions) n += c;
  return n;
}

}  // namespace tessera::eu
