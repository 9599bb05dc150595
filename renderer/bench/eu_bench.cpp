#include "bench/eu_bench.h"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "eu/eu_math.h"
#include "eu/eu_math_inputs.h"

namespace tessera {

namespace {

using eu::MathFunction;

// The bench's reference is the host's long double libm (64-bit significand: 11 bits beyond
// binary64, 40 beyond binary32), so the measured ULP error is good to about 1/1000 ULP for
// binary64. Host math is used here only to judge results, never to compute them; the unit tests
// compare against MPFR instead.
long double reference(MathFunction f, long double x, long double y) {
  switch (f) {
    case MathFunction::log2: return std::log2(x);
    case MathFunction::log: return std::log(x);
    case MathFunction::exp2: return std::exp2(x);
    case MathFunction::exp: return std::exp(x);
    case MathFunction::pow: {
      // IEEE 754-2008 powr: NaN for negative x, 0^0, inf^0 and 1^inf; -0 counts as +0.
      if (std::isnan(x) || std::isnan(y) || (x < 0) || (x == 0 && y == 0) || (std::isinf(x) && y == 0) ||
          (x == 1 && std::isinf(y)))
        return std::numeric_limits<long double>::quiet_NaN();
      return std::pow(std::fabs(x), y);
    }
    case MathFunction::cbrt: return std::cbrt(x);
    case MathFunction::sqrt: return std::sqrt(x);
    case MathFunction::rsqrt: return 1.0L / std::sqrt(x);  // two long double roundings: ~1/1000 ulp
    case MathFunction::div: return x / y;
  }
  return x;
}

// |result - ref| in units of the last place of T at ref; infinite for a wrong special.
template <class T>
double ulp_error(T result, long double ref) {
  if (std::isnan(ref)) return std::isnan(result) ? 0.0 : HUGE_VAL;
  if (std::isnan(result)) return HUGE_VAL;
  // Round the reference to T first: an infinite or zero rounded reference must match exactly.
  const T rounded = T(ref);
  if (std::isinf(rounded) || rounded == 0) {
    if (rounded == result && std::signbit(rounded) == std::signbit(result)) return 0.0;
    if (std::isinf(result) || std::isinf(rounded)) return HUGE_VAL;
  }
  if (std::isinf(result)) return HUGE_VAL;
  int e = 0;
  std::frexp(ref, &e);  // ref = f * 2^e, f in [1/2, 1)
  constexpr int kDigits = std::numeric_limits<T>::digits;
  const int min_e = std::numeric_limits<T>::min_exponent;  // ulp stops shrinking at subnormals
  const long double ulp = std::ldexp(1.0L, std::max(e, min_e) - kDigits);
  return double(std::fabs((long double)result - ref) / ulp);
}

template <class T>
EuFunctionReport measure(MathFunction f, int samples, uint64_t seed, int accuracy_samples) {
  EuFunctionReport rep;
  rep.name = eu::math_function_name(f);
  rep.precision = sizeof(T) == 4 ? "binary32" : "binary64";
  const size_t count = size_t(std::max(samples, 0));
  std::vector<T> xs(count), ys(count), out(count);
  uint64_t state = seed ^ (uint64_t(f) << 32) ^ sizeof(T);
  for (size_t i = 0; i < count; ++i) {
    xs[i] = eu::math_operand<T>(f, 0, state, 5);  // 5% special values
    ys[i] = eu::math_operand<T>(f, 1, state, 5);
  }
  eu::EuCounters branch_free, branchy;
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < count; ++i) out[i] = eu::evaluate(f, false, xs[i], ys[i], branch_free);
  const auto t1 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < count; ++i) eu::evaluate(f, true, xs[i], ys[i], branchy);
  const double seconds = std::chrono::duration<double>(t1 - t0).count();
  // Native fast path: bit-identical to the model's results (checked), then timed alone,
  // repeated until at least 20 ms have passed.
  bool identical = true;
  for (size_t i = 0; i < count; ++i) {
    const T r = eu::evaluate_native(f, xs[i], ys[i]);
    identical &= std::memcmp(&r, &out[i], sizeof(T)) == 0;
  }
  std::vector<T> native_out(count);
  double native_seconds = 0;
  uint64_t native_results = 0;
  while (count > 0 && native_seconds < 0.02) {
    const auto n0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < count; ++i) native_out[i] = eu::evaluate_native(f, xs[i], ys[i]);
    native_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - n0).count();
    native_results += count;
  }
  double sum = 0, worst = 0;
  for (size_t i = 0; i < count; ++i) {
    const double err = ulp_error(out[i], reference(f, xs[i], ys[i]));
    worst = std::max(worst, err);
    sum += err;
  }
  const double n = count > 0 ? double(count) : 1.0;
  rep.branch_free_instructions_per_call = double(eu::dynamic_instructions(branch_free)) / n;
  rep.branchy_instructions_per_call = double(eu::dynamic_instructions(branchy)) / n;
  rep.max_ulp = worst;
  rep.mean_ulp = sum / n;
  rep.results_per_second = seconds > 0 ? double(count) / seconds : 0.0;
  rep.native_results_per_second = native_seconds > 0 ? double(native_results) / native_seconds : 0.0;
  if (!identical) rep.max_ulp = HUGE_VAL;  // the fast path must be bit-identical to the model
  // Accuracy sweep on the native path (bit-identical to the model, checked above and in the unit
  // tests): the unit test's mix of domain inputs and hard cases, no specials.
  uint64_t sweep_state = 0x5EED0000u + uint64_t(f) + (sizeof(T) << 8);
  double sweep_worst = 0;
  for (int i = 0; i < accuracy_samples; ++i) {
    T x = 0, y = 0;
    eu::sweep_operands<T>(f, i, sweep_state, x, y);
    sweep_worst = std::max(sweep_worst, ulp_error(eu::evaluate_native(f, x, y), reference(f, x, y)));
  }
  rep.sweep_max_ulp = sweep_worst;
  rep.sweep_samples = std::max(accuracy_samples, 0);
  return rep;
}

}  // namespace

std::vector<EuFunctionReport> run_eu_bench(int samples_per_function, uint64_t seed, int accuracy_samples) {
  std::vector<EuFunctionReport> reports;
  for (int i = 0; i < eu::kMathFunctionCount; ++i) {
    reports.push_back(measure<float>(MathFunction(i), samples_per_function, seed, accuracy_samples));
    reports.push_back(measure<double>(MathFunction(i), samples_per_function, seed, accuracy_samples));
  }
  return reports;
}

}  // namespace tessera
