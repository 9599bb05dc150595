// Shader math on the execution unit: fast, bit-identical evaluation of the EU's branch-free math
// library (docs/eu.md) for per-pixel use, plus per-thread call accounting that turns into the
// EU's instruction counts for frame stats.
//
// The functions in tessera::eu_fast return exactly (bit for bit, NaNs included) what the
// modelled datapath returns for the same branch-free algorithm, but run natively (roughly 100x
// faster than the model; measured numbers in docs/eu.md). They count nothing.
//
// EuShaderMath is the accumulator a shader stage owns per thread (or per tile/chunk): its
// member functions evaluate and count calls; merge() sums accumulators in a fixed order. The
// branch-free functions have no data-dependent control flow, so one call of f costs the same
// EU instructions (per opcode) on every input: instructions = calls x a per-call profile
// obtained once from the model. publish() writes those counts as the EU's stats keys.
//
//   tessera::EuShaderMath math;                 // one per worker / tile
//   float spec = math.pow(n_dot_h, shininess);  // counted
//   ...
//   frame_math.merge(math);                     // in tile order
//   frame_math.publish(stats);                  // eu.instructions.fma, eu.fma.rounder, ...
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera {

class Stats;

// The EU math functions, declared once: X(name, arity, meaning). eu::MathFunction (private) and
// EuMathFunction are the same list.
// clang-format off
#define TESSERA_EU_MATH_FUNCTIONS(X)          \
  X(log2, 1, "base-2 logarithm")              \
  X(log, 1, "natural logarithm")              \
  X(exp2, 1, "2^x")                           \
  X(exp, 1, "e^x")                            \
  X(pow, 2, "x^y, IEEE 754 powr semantics")   \
  X(cbrt, 1, "cube root")                     \
  X(sqrt, 1, "square root")                   \
  X(rsqrt, 1, "reciprocal square root")       \
  X(div, 2, "x / y")
// clang-format on

enum class EuMathFunction : uint8_t {
#define TESSERA_X(name, arity, desc) name,
  TESSERA_EU_MATH_FUNCTIONS(TESSERA_X)
#undef TESSERA_X
};

inline constexpr int kEuMathFunctionCount = 0
#define TESSERA_X(name, arity, desc) +1
    TESSERA_EU_MATH_FUNCTIONS(TESSERA_X)
#undef TESSERA_X
    ;

// Native evaluation, bit-identical to eu::math on the datapath model; thread-safe, uncounted.
// pow is powr (NaN for x < 0, 0^0, inf^0, 1^inf).
namespace eu_fast {
float log2(float x);
float log(float x);
float exp2(float x);
float exp(float x);
float pow(float x, float y);
float cbrt(float x);
float sqrt(float x);
float rsqrt(float x);  // 1/sqrt(x): +-0 -> +-inf, +inf -> +0, x < 0 -> NaN
float div(float x, float y);
double log2(double x);
double log(double x);
double exp2(double x);
double exp(double x);
double pow(double x, double y);
double cbrt(double x);
double sqrt(double x);
double rsqrt(double x);
double div(double x, double y);

// The same binary32 functions on n lanes at once (x[i], y[i] -> out[i]), in the host's SIMD
// lanes as the modelled EU issues one instruction for all of its lanes: each out[i] is bit for
// bit the scalar function's result (lanes with special operands or results take the scalar
// path). Uncounted; EuShaderMath's *_lanes members count one call per lane.
void log2_lanes(const float* x, float* out, int n);
void exp_lanes(const float* x, float* out, int n);
void sqrt_lanes(const float* x, float* out, int n);
void rsqrt_lanes(const float* x, float* out, int n);
void pow_lanes(const float* x, const float* y, float* out, int n);
void div_lanes(const float* x, const float* y, float* out, int n);
// Binary32 lanes in one host vector (8 with AVX2, 4 with NEON).
int host_lanes();
}  // namespace eu_fast

// Per-thread accumulator of binary32 shader math calls. Not thread-safe by design: one per
// thread, merged afterwards (deterministic when merged in a fixed order).
class EuShaderMath {
 public:
  float log2(float x) { return count(EuMathFunction::log2), eu_fast::log2(x); }
  float log(float x) { return count(EuMathFunction::log), eu_fast::log(x); }
  float exp2(float x) { return count(EuMathFunction::exp2), eu_fast::exp2(x); }
  float exp(float x) { return count(EuMathFunction::exp), eu_fast::exp(x); }
  float pow(float x, float y) { return count(EuMathFunction::pow), eu_fast::pow(x, y); }
  float cbrt(float x) { return count(EuMathFunction::cbrt), eu_fast::cbrt(x); }
  float sqrt(float x) { return count(EuMathFunction::sqrt), eu_fast::sqrt(x); }
  float rsqrt(float x) { return count(EuMathFunction::rsqrt), eu_fast::rsqrt(x); }
  float div(float x, float y) { return count(EuMathFunction::div), eu_fast::div(x, y); }
  // n lanes at once (eu_fast::*_lanes), counted as n calls.
  void exp_lanes(const float* x, float* out, int n) { count(EuMathFunction::exp, n), eu_fast::exp_lanes(x, out, n); }
  void sqrt_lanes(const float* x, float* out, int n) { count(EuMathFunction::sqrt, n), eu_fast::sqrt_lanes(x, out, n); }
  void rsqrt_lanes(const float* x, float* out, int n) {
    count(EuMathFunction::rsqrt, n), eu_fast::rsqrt_lanes(x, out, n);
  }
  void pow_lanes(const float* x, const float* y, float* out, int n) {
    count(EuMathFunction::pow, n), eu_fast::pow_lanes(x, y, out, n);
  }
  void div_lanes(const float* x, const float* y, float* out, int n) {
    count(EuMathFunction::div, n), eu_fast::div_lanes(x, y, out, n);
  }

  // Counts n calls of f whose lanes the caller evaluated itself: a per-target fragment program
  // calls its own target's lane kernels (eu/eu_lanes-inl.h), which count nothing, instead of
  // going through the dispatch of eu_fast::*_lanes on every call.
  void count_lanes(EuMathFunction f, int n) { count(f, n); }

  // The shader's own arithmetic between library calls, as FMA-datapath instructions: a shader
  // states what each straight-line block of its program issues (a vec3 dot product is one mul
  // and two fma) and counts it where the block runs. Compares and selects are not datapath work.
  void alu(uint32_t fma, uint32_t mul, uint32_t add) {
    alu_[0] += fma;
    alu_[1] += mul;
    alu_[2] += add;
  }

  uint64_t calls(EuMathFunction f) const { return calls_[std::size_t(f)]; }
  uint64_t total_calls() const;
  uint64_t alu_fma() const { return alu_[0]; }
  uint64_t alu_mul() const { return alu_[1]; }
  uint64_t alu_add() const { return alu_[2]; }
  void merge(const EuShaderMath& o) {
    for (std::size_t i = 0; i < calls_.size(); ++i) calls_[i] += o.calls_[i];
    for (std::size_t i = 0; i < alu_.size(); ++i) alu_[i] += o.alu_[i];
  }
  // Dynamic EU instructions (all opcodes): arithmetic plus calls x per-call profile.
  uint64_t instructions() const;
  // The same calls and arithmetic with the branchy frexp/ldexp-style baseline library instead
  // (eu::baseline; per-call cost the mean over ordinary operands): the timing model's
  // hardware.math_library = "baseline".
  uint64_t baseline_instructions() const;
  // Writes the EU counters of this work (eu.instructions.<opcode>, eu.fma.<block>; the
  // blocks are those of ordinary operands, specials bypass part of them) and the call counts
  // (eu.math.calls.<function>). Sets the keys; callers that also run the model merge first
  // (eu::to_counters in eu/eu_math.h).
  void publish(Stats& stats) const;
  // One shader stage's share, under `prefix` (e.g. "eu.stage.fragment"):
  // <prefix>.dynamic_instructions, <prefix>.instructions.<opcode>, <prefix>.math.calls.<function>.
  void publish_stage(Stats& stats, const std::string& prefix) const;
  // A raster frame's EU work: eu.stage.{vertex,fragment,hull,domain}.*, the frame's totals
  // (publish), eu.dynamic_instructions, and the vertex program's length L
  // (shader.vertex.instructions_per_invocation).
  static void publish_frame(Stats& stats, const EuShaderMath& vertex, const EuShaderMath& fragment,
                            const EuShaderMath& hull, const EuShaderMath& domain, uint64_t vertex_length);

 private:
  void count(EuMathFunction f, int n = 1) { calls_[std::size_t(f)] += uint64_t(n); }
  std::array<uint64_t, kEuMathFunctionCount> calls_{};
  std::array<uint64_t, 3> alu_{};  // fma, mul, add
};

}  // namespace tessera
