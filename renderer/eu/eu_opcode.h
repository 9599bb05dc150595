// The execution unit's floating-point opcodes: a closed set, declared once. Every opcode runs
// on the one FMA datapath (docs/eu.md has the semantics table).
#pragma once

#include <cstdint>

namespace tessera::eu {

// X(name, meaning). Operands are a, b, c; imm is the instruction's immediate.
// clang-format off
#define TESSERA_EU_OPCODES(X)                                                              \
  X(fma, "a*b + c with one rounding")                                                      \
  X(add, "a + b, run as fma(a, 1, b)")                                                     \
  X(mul, "a * b, run as fma(a, b, -0)")                                                    \
  X(getexp, "floor(log2|a|) as a float; imm 0..3 selects the exponent variant")            \
  X(getmant, "a's significand in an interval; imm[1:0] interval, imm[3:2] sign control")   \
  X(scalef, "a * 2^floor(b), rounded")                                                     \
  X(getexpdiff, "exponent of a/b: ue(a) - ue(b), minus 1 if mant(a) < mant(b)")            \
  X(getmantdiv, "signed mant(a), doubled if mant(a) < mant(b)")
// clang-format on

enum class Opcode : uint8_t {
#define TESSERA_X(name, desc) name,
  TESSERA_EU_OPCODES(TESSERA_X)
#undef TESSERA_X
};

inline constexpr int kOpcodeCount = 0
#define TESSERA_X(name, desc) +1
    TESSERA_EU_OPCODES(TESSERA_X)
#undef TESSERA_X
    ;

const char* opcode_name(Opcode op);
const char* opcode_description(Opcode op);

}  // namespace tessera::eu
