// Bit-accurate model of the execution unit's fused multiply-add datapath for binary32 and
// binary64, and the instructions that reuse it: fma, add, mul, getexp, getmant, scalef,
// getexpdiff, getmantdiv (spec: shared/spec/eu-fma-exp-mant.md; semantics table in docs/eu.md).
// Everything is integer arithmetic on the operand fields, stage by stage as the hardware does
// it; no host FPU instruction computes a result. Rounding is to nearest, ties to even; no
// denormals-are-zero or flush-to-zero (x86 MXCSR defaults), no exception flags.
#pragma once

#include <array>
#include <cstdint>

#include "eu/eu_counters.h"
#include "eu/eu_opcode.h"
#include "eu/float_format.h"

namespace tessera::eu {

inline constexpr int kSimdWidth = 16;  // lanes per FPU issue

// One register's worth of lanes: 16 bit patterns, lane 0 first.
template <class F>
using Lanes = std::array<typename F::Bits, kSimdWidth>;
static_assert(sizeof(Lanes<Binary32>) == 64 && sizeof(Lanes<Binary64>) == 128);

// getmant's immediate, x86 VGETMANT layout: imm[1:0] = interval, imm[3:2] = sign control.
constexpr uint8_t getmant_imm(int interval, int signctrl) { return uint8_t((interval & 3) | ((signctrl & 3) << 2)); }

// Runs one lane of `op` on IEEE bit patterns of format F. Operands by opcode: fma a*b+c;
// add a+b; mul a*b; getexp(a, imm 0..3); getmant(a, imm 0..15); scalef(a, b); getexpdiff(a, b);
// getmantdiv(a, b). Unused operands are ignored. Counts the instruction and every block used.
template <class F>
typename F::Bits execute(Opcode op, typename F::Bits a, typename F::Bits b, typename F::Bits c, uint8_t imm,
                         EuCounters& counters);

// One 16-lane issue: out[i] = execute(op, a[i], b[i], c[i], imm) for each lane whose mask bit
// i is set; masked-off lanes keep their previous out value (merge masking).
template <class F>
void execute16(Opcode op, const Lanes<F>& a, const Lanes<F>& b, const Lanes<F>& c, uint8_t imm, Lanes<F>& out,
               uint16_t mask, EuCounters& counters);

extern template uint32_t execute<Binary32>(Opcode, uint32_t, uint32_t, uint32_t, uint8_t, EuCounters&);
extern template uint64_t execute<Binary64>(Opcode, uint64_t, uint64_t, uint64_t, uint8_t, EuCounters&);
extern template void execute16<Binary32>(Opcode, const Lanes<Binary32>&, const Lanes<Binary32>&, const Lanes<Binary32>&,
                                         uint8_t, Lanes<Binary32>&, uint16_t, EuCounters&);
extern template void execute16<Binary64>(Opcode, const Lanes<Binary64>&, const Lanes<Binary64>&, const Lanes<Binary64>&,
                                         uint8_t, Lanes<Binary64>&, uint16_t, EuCounters&);

// Typed single-lane conveniences (bit-cast in, run the model, bit-cast out).
float fma(float a, float b, float c, EuCounters& counters);
double fma(double a, double b, double c, EuCounters& counters);
float add(float a, float b, EuCounters& counters);
double add(double a, double b, EuCounters& counters);
float mul(float a, float b, EuCounters& counters);
double mul(double a, double b, EuCounters& counters);
float getexp(float x, int imm, EuCounters& counters);
double getexp(double x, int imm, EuCounters& counters);
float getmant(float x, int interval, int signctrl, EuCounters& counters);
double getmant(double x, int interval, int signctrl, EuCounters& counters);
float scalef(float x, float y, EuCounters& counters);
double scalef(double x, double y, EuCounters& counters);
float getexpdiff(float a, float b, EuCounters& counters);
double getexpdiff(double a, double b, EuCounters& counters);
float getmantdiv(float a, float b, EuCounters& counters);
double getmantdiv(double a, double b, EuCounters& counters);

}  // namespace tessera::eu
