// The fast path: the branch-free algorithms (eu_math_impl.h) instantiated on the native ISA
// (native_isa.h), the per-call profiles from the model, and the shader-side accumulator.
#include "tessera/eu_shader_math.h"

#include <array>
#include <mutex>
#include <string>

#include "eu/eu_math.h"
#include "eu/eu_math_impl.h"
#include "eu/eu_math_inputs.h"
#include "eu/fma_datapath.h"
#include "tessera/stats.h"

namespace tessera {

namespace eu_fast {
namespace {
// Runs the algorithm on the unchecked native ISA; a NaN result is re-evaluated on the NaN-exact
// one, so the payload is the model's too (native_isa.h explains why that is enough).
template <class T, class Algo>
inline T run(Algo algo) {
  eu::FastNativeIsa fast;
  const T r = algo(fast);
  if (r == r) [[likely]]
    return r;
  eu::NativeIsa exact;
  return algo(exact);
}
}  // namespace
// clang-format off
#define TESSERA_EU_FAST1(name, T) \
  T name(T x) { return run<T>([&](auto& isa) { return eu::algo::name##_bf(x, isa); }); }
// clang-format on
// clang-format off
#define TESSERA_EU_FAST2(name, T) \
  T name(T x, T y) { return run<T>([&](auto& isa) { return eu::algo::name##_bf(x, y, isa); }); }
// clang-format on
TESSERA_EU_FAST1(log2, float)
TESSERA_EU_FAST1(log, float)
TESSERA_EU_FAST1(exp2, float)
TESSERA_EU_FAST1(exp, float)
TESSERA_EU_FAST2(pow, float)
TESSERA_EU_FAST1(cbrt, float)
TESSERA_EU_FAST1(sqrt, float)
TESSERA_EU_FAST1(rsqrt, float)
TESSERA_EU_FAST2(div, float)
TESSERA_EU_FAST1(log2, double)
TESSERA_EU_FAST1(log, double)
TESSERA_EU_FAST1(exp2, double)
TESSERA_EU_FAST1(exp, double)
TESSERA_EU_FAST2(pow, double)
TESSERA_EU_FAST1(cbrt, double)
TESSERA_EU_FAST1(sqrt, double)
TESSERA_EU_FAST1(rsqrt, double)
TESSERA_EU_FAST2(div, double)
#undef TESSERA_EU_FAST1
#undef TESSERA_EU_FAST2
}  // namespace eu_fast

namespace eu {

namespace {

template <class T>
T evaluate_native_t(MathFunction f, T x, T y) {
  switch (f) {
// clang-format off
#define TESSERA_X(name, arity, desc)             \
  case MathFunction::name:                       \
    if constexpr (arity == 1) {                  \
      return eu_fast::name(x);                   \
    } else {                                     \
      return eu_fast::name(x, y);                \
    }
    // clang-format on
    TESSERA_EU_MATH_FUNCTIONS(TESSERA_X)
#undef TESSERA_X
  }
  return x;
}

// What one ordinary binary32 fma, mul and add cost on the datapath (blocks included), from the
// model on fixed full-significand operands.
struct AluProfiles {
  EuCounters fma, mul, add;
  AluProfiles() {
    eu::fma(1.3f, 10.7f, 2.9f, fma);
    eu::mul(1.3f, 10.7f, mul);
    eu::add(10.7f, 2.9f, add);
  }
};

const AluProfiles& alu_profiles() {
  static const AluProfiles instance;
  return instance;
}

// The profiles of one function: what a binary32 call, a binary64 call and a call of the
// branchy baseline (binary32, its dynamic instructions) cost. The opcode counts are those of any
// call (the same for every input). Block activations depend on the data in the model (a zero
// operand takes the special bypass), so the profile's are the rounded mean over 256 fixed
// ordinary operands (random x in [8, 16), y in [1.2, 2), full significands). Each of the three
// is computed on first use: evaluating the model is ~5 M host instructions per function and
// kind, and a frame needs few of them (the Lambert programs: binary32 rsqrt and div), so
// computing all 27 up front cost the first frame ~47 M instructions.
enum class ProfileKind : uint8_t { binary32, binary64, baseline };
inline constexpr int kProfileKinds = 3;
inline constexpr int kProfileSamples = 256;

// Calls each(x, y) on the profiles' fixed operands, the same sequence for every function and kind.
template <class Each>
void for_profile_operands(Each each) {
  uint64_t state = 0x9E0F11E;  // fixed: the profiles are deterministic
  for (int i = 0; i < kProfileSamples; ++i) {
    const double x = 8.0 + 8.0 * unit_random(state);  // full significands
    const double y = 1.2 + 0.8 * unit_random(state);
    each(x, y);
  }
}

struct Profile {
  std::once_flag once;
  EuCounters counters;             // binary32 and binary64 kinds
  uint64_t baseline_instructions = 0;  // baseline kind
};

Profile& computed_profile(MathFunction f, ProfileKind kind) {
  static std::array<Profile, size_t(kMathFunctionCount) * kProfileKinds> table;  // thread-safe per entry
  Profile& profile = table[size_t(f) * kProfileKinds + size_t(kind)];
  std::call_once(profile.once, [&] {
    EuCounters sum;
    if (kind == ProfileKind::binary64) {
      for_profile_operands([&](double x, double y) { evaluate(f, false, x, y, sum); });
    } else {
      for_profile_operands([&](double x, double y) {
        evaluate(f, kind == ProfileKind::baseline, float(x), float(y), sum);
      });
    }
    if (kind == ProfileKind::baseline) {
      profile.baseline_instructions = (dynamic_instructions(sum) + kProfileSamples / 2) / kProfileSamples;
      return;
    }
    EuCounters& out = profile.counters;
    for (size_t i = 0; i < out.instructions.size(); ++i) out.instructions[i] = sum.instructions[i] / kProfileSamples;
    for (size_t i = 0; i < out.v.size(); ++i) out.v[i] = (sum.v[i] + kProfileSamples / 2) / kProfileSamples;
  });
  return profile;
}

void add_scaled(EuCounters& into, const EuCounters& profile, uint64_t times) {
  for (size_t i = 0; i < profile.instructions.size(); ++i) into.instructions[i] += times * profile.instructions[i];
  for (size_t i = 0; i < profile.v.size(); ++i) into.v[i] += times * profile.v[i];
}

}  // namespace

float evaluate_native(MathFunction f, float x, float y) { return evaluate_native_t(f, x, y); }
double evaluate_native(MathFunction f, double x, double y) { return evaluate_native_t(f, x, y); }

const EuCounters& call_profile(MathFunction f, bool single) {
  return computed_profile(f, single ? ProfileKind::binary32 : ProfileKind::binary64).counters;
}
uint64_t baseline_call_instructions(MathFunction f) {
  return computed_profile(f, ProfileKind::baseline).baseline_instructions;
}

EuCounters to_counters(const EuShaderMath& calls) {
  EuCounters k;
  for (int f = 0; f < kMathFunctionCount; ++f) {
    // A function never called adds nothing: its profile is not computed for it.
    if (const uint64_t n = calls.calls(MathFunction(f)); n != 0) add_scaled(k, call_profile(MathFunction(f), true), n);
  }
  const AluProfiles& alu = alu_profiles();
  add_scaled(k, alu.fma, calls.alu_fma());
  add_scaled(k, alu.mul, calls.alu_mul());
  add_scaled(k, alu.add, calls.alu_add());
  return k;
}

}  // namespace eu

uint64_t EuShaderMath::total_calls() const {
  uint64_t n = 0;
  for (uint64_t c : calls_) n += c;
  return n;
}

uint64_t EuShaderMath::instructions() const { return eu::dynamic_instructions(eu::to_counters(*this)); }

uint64_t EuShaderMath::baseline_instructions() const {
  // The calls at the baseline's per-call cost; the straight-line arithmetic is the same.
  EuShaderMath arithmetic = *this;
  arithmetic.calls_.fill(0);
  uint64_t n = arithmetic.instructions();
  for (int f = 0; f < kEuMathFunctionCount; ++f) {
    n += calls_[size_t(f)] * eu::baseline_call_instructions(eu::MathFunction(f));
  }
  return n;
}

void EuShaderMath::publish(Stats& stats) const {
  eu::to_counters(*this).publish(stats);
  for (int f = 0; f < kEuMathFunctionCount; ++f)
    stats.set(std::string("eu.math.calls.") + eu::math_function_name(EuMathFunction(f)), calls_[size_t(f)]);
}

void EuShaderMath::publish_stage(Stats& stats, const std::string& prefix) const {
  const eu::EuCounters k = eu::to_counters(*this);
  stats.set(prefix + ".dynamic_instructions", eu::dynamic_instructions(k));
  for (int op = 0; op < eu::kOpcodeCount; ++op)
    stats.set(prefix + ".instructions." + eu::opcode_name(eu::Opcode(op)), k.instructions[size_t(op)]);
  for (int f = 0; f < kEuMathFunctionCount; ++f)
    stats.set(prefix + ".math.calls." + eu::math_function_name(EuMathFunction(f)), calls_[size_t(f)]);
}

void EuShaderMath::publish_frame(Stats& s, const EuShaderMath& vertex, const EuShaderMath& fragment,
                                 const EuShaderMath& hull, const EuShaderMath& domain, uint64_t vertex_length) {
  vertex.publish_stage(s, "eu.stage.vertex");
  fragment.publish_stage(s, "eu.stage.fragment");
  hull.publish_stage(s, "eu.stage.hull");
  domain.publish_stage(s, "eu.stage.domain");
  EuShaderMath frame = vertex;
  frame.merge(fragment);
  frame.merge(hull);
  frame.merge(domain);
  frame.publish(s);
  s.set("eu.dynamic_instructions", frame.instructions());
  s.set("shader.vertex.instructions_per_invocation", vertex_length);
}

}  // namespace tessera
