// IEEE 754 binary formats as the execution unit sees them: field widths, the masks the
// pre-processing stage uses, and the integer type wide enough for the datapath's internal
// significands. The datapath is templated on one of these traits types.
#pragma once

#include <bit>
#include <cstdint>

namespace tessera::eu {

// 128-bit unsigned integer: the binary64 significand product needs 106 bits.
__extension__ typedef unsigned __int128 Uint128;

struct Binary32 {
  using Bits = uint32_t;  // the register bit pattern
  using Wide = uint64_t;  // 48-bit product + carry + guard bits
  using Native = float;
  static constexpr int kBits = 32;
  static constexpr int kExpBits = 8;
  static constexpr int kFracBits = 23;  // stored fraction bits; precision is kFracBits + 1
  static constexpr int kBias = 127;
};

struct Binary64 {
  using Bits = uint64_t;
  using Wide = Uint128;  // 106-bit product + carry + guard bits
  using Native = double;
  static constexpr int kBits = 64;
  static constexpr int kExpBits = 11;
  static constexpr int kFracBits = 52;
  static constexpr int kBias = 1023;
};

static_assert(sizeof(Binary32::Bits) == sizeof(float) && sizeof(Binary32::Wide) == 8);
static_assert(sizeof(Binary64::Bits) == sizeof(double) && sizeof(Binary64::Wide) == 16);

// Constants derived from a format's field widths (one definition, no duplicated literals).
template <class F>
struct Format : F {
  using Bits = typename F::Bits;
  using Wide = typename F::Wide;
  static constexpr int kPrecision = F::kFracBits + 1;  // significand bits incl. the leading 1
  static constexpr int kWideBits = int(sizeof(Wide) * 8);
  static constexpr int kExpAllOnes = (1 << F::kExpBits) - 1;  // biased exponent of inf/NaN
  static constexpr int kEmin = 1 - F::kBias;                  // unbiased exponent of min normal
  static constexpr int kEmax = F::kBias;                      // unbiased exponent of max normal
  static constexpr Bits kSign = Bits(1) << (F::kBits - 1);
  static constexpr Bits kFracMask = (Bits(1) << F::kFracBits) - 1;
  static constexpr Bits kHidden = Bits(1) << F::kFracBits;  // the implicit leading 1
  static constexpr Bits kExpMask = Bits(kExpAllOnes) << F::kFracBits;
  static constexpr Bits kQuiet = Bits(1) << (F::kFracBits - 1);  // quiet-NaN flag bit
  static constexpr Bits kInf = kExpMask;
  static constexpr Bits kOne = Bits(F::kBias) << F::kFracBits;
  // x86 "QNaN indefinite": what invalid operations return (sign set, quiet, zero payload).
  static constexpr Bits kDefaultNan = kSign | kExpMask | kQuiet;
  // A product of two significands, its carry and the alignment guard bits must fit in Wide.
  static_assert(2 * kPrecision + 2 < kWideBits);
};

template <class F>
typename F::Bits to_bits(typename F::Native x) {
  return std::bit_cast<typename F::Bits>(x);
}
template <class F>
typename F::Native from_bits(typename F::Bits x) {
  return std::bit_cast<typename F::Native>(x);
}

}  // namespace tessera::eu
