// Execution-unit counters, declared once. A caller (a shader invocation batch, a tile, a
// thread) owns one EuCounters, passes it by reference to every execute call, and merges it
// into its parent when done, so counting never takes a lock.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "tessera/counter_set.h"
#include "eu/eu_opcode.h"

namespace tessera::eu {

// X(name, stats key, meaning). Block counters are activations per lane: one lane passing
// through a block once counts 1 (docs/eu.md lists which blocks each opcode uses).
// clang-format off
#define TESSERA_EU_COUNTERS(X)                                                                        \
  X(simd_issues, "eu.simd.issues", "16-lane instruction issues (execute16 calls)")                   \
  X(simd_lanes_active, "eu.simd.lanes_active", "lanes enabled by an issue's mask")                   \
  X(simd_lanes_idle, "eu.simd.lanes_idle", "lane slots masked off in an issue")                      \
  X(preprocess, "eu.fma.preprocess", "pre-processing: field extraction and special detection")       \
  X(special_bypass, "eu.fma.special_bypass", "special results written by pre-processing; main path skipped") \
  X(subnormal_operands, "eu.fma.subnormal_operands", "subnormal operands normalised before use")     \
  X(multiplier, "eu.fma.multiplier", "exact significand products")                                  \
  X(aligner, "eu.fma.aligner", "addend alignment shifts (with sticky bit)")                          \
  X(adder, "eu.fma.adder", "significand or exponent additions through the main adder")             \
  X(lzd, "eu.fma.lzd", "leading-zero detections")                                                   \
  X(normaliser, "eu.fma.normaliser", "normalising shifts")                                          \
  X(exponent_adjust, "eu.fma.exponent_adjust", "result exponent computations")                       \
  X(range_check, "eu.fma.overflow_underflow", "overflow/underflow checks (incl. denormalisation)")    \
  X(rounder, "eu.fma.rounder", "round-to-nearest-even steps")                                       \
  X(int_to_float, "eu.fma.int_to_float", "integer-to-float conversions (getexp results)")            \
  X(float_to_int, "eu.fma.float_to_int", "float-to-integer floor conversions (scalef's src1)")       \
  X(mux, "eu.fma.mux_uses", "selections through the muxes getexp/getmant/scalef add")            \
  X(branches, "eu.math.branches", "conditional branches evaluated (branchy baseline math only)")   \
  X(integer_ops, "eu.math.integer_ops", "integer ALU instructions: field extraction/insertion, int<->float (branchy baseline)")
// clang-format on

TESSERA_DEFINE_COUNTER_IDS(EuCounterIds, TESSERA_EU_COUNTERS);

// Block counters plus lane operations per opcode.
struct EuCounters : CounterSet<EuCounterIds> {
  std::array<uint64_t, kOpcodeCount> instructions{};

  using CounterSet<EuCounterIds>::operator[];
  uint64_t& operator[](Opcode op) { return instructions[size_t(op)]; }
  uint64_t operator[](Opcode op) const { return instructions[size_t(op)]; }
  void merge(const EuCounters& o) {
    CounterSet<EuCounterIds>::merge(o);
    for (size_t i = 0; i < instructions.size(); ++i) instructions[i] += o.instructions[i];
  }
  // Writes every counter as a stats key ("eu.fma.rounder", "eu.instructions.getmant", ...).
  void publish(Stats& stats) const;
  using CounterSet<EuCounterIds>::key;
  static const char* key(Opcode op);
};

}  // namespace tessera::eu
