// This CPU's AVX-512 instructions as 16-lane oracles for the datapath model: VGETEXP, VGETMANT,
// VSCALEF, VFMADD213, VADD, VMUL, ps and pd. Shared by the live oracle test
// (avx512_oracle_test.cpp) and the golden-vector recorder (gen/eu_golden_record.cpp). Each
// function is compiled for AVX-512F by attribute (the project targets x86-64-v3), so callers must
// check cpu_has_avx512f() first.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstddef>
#include <utility>

#include "eu/fma_datapath.h"

namespace tessera::eu::avx512 {

using L32 = Lanes<Binary32>;
using L64 = Lanes<Binary64>;

inline bool cpu_has_avx512f() { return __builtin_cpu_supports("avx512f"); }

#define TESSERA_AVX512 __attribute__((target("avx512f")))

// ---- Oracles: one 16-lane (binary32) or 8-lane x2 (binary64) instruction per batch ----------
// The all-ones zero-masking forms (maskz) are the plain instructions; GCC 12's unmasked
// intrinsics trip -Wuninitialized on their internal undefined pass-through operand.

TESSERA_AVX512 inline L32 oracle_getexp(const L32& a) {
  L32 r;
  _mm512_storeu_ps(r.data(), _mm512_maskz_getexp_ps(0xFFFF, _mm512_loadu_ps(a.data())));
  return r;
}
TESSERA_AVX512 inline L64 oracle_getexp(const L64& a) {
  L64 r;
  for (size_t h = 0; h < 16; h += 8)
    _mm512_storeu_pd(r.data() + h, _mm512_maskz_getexp_pd(0xFF, _mm512_loadu_pd(a.data() + h)));
  return r;
}

// x86 imm8 layout: interval in imm[1:0], sign control in imm[3:2] (identical to the model's).
template <int kImm>
TESSERA_AVX512 inline L32 oracle_getmant_imm(const L32& a) {
  L32 r;
  const __m512 v = _mm512_loadu_ps(a.data());
  const auto interval = _MM_MANTISSA_NORM_ENUM(kImm & 3);
  const auto signctrl = _MM_MANTISSA_SIGN_ENUM(kImm >> 2);
  _mm512_storeu_ps(r.data(), _mm512_maskz_getmant_ps(0xFFFF, v, interval, signctrl));
  return r;
}
template <int kImm>
TESSERA_AVX512 inline L64 oracle_getmant_imm(const L64& a) {
  L64 r;
  for (size_t h = 0; h < 16; h += 8) {
    const __m512d v = _mm512_loadu_pd(a.data() + h);
    const auto interval = _MM_MANTISSA_NORM_ENUM(kImm & 3);
    const auto signctrl = _MM_MANTISSA_SIGN_ENUM(kImm >> 2);
    _mm512_storeu_pd(r.data() + h, _mm512_maskz_getmant_pd(0xFF, v, interval, signctrl));
  }
  return r;
}
template <class L, size_t... I>
constexpr std::array<L (*)(const L&), 16> getmant_table(std::index_sequence<I...>) {
  return {&oracle_getmant_imm<int(I)>...};
}
template <class L>
inline L oracle_getmant(const L& a, uint8_t imm) {
  static constexpr auto kTable = getmant_table<L>(std::make_index_sequence<16>{});
  return kTable[imm](a);
}

TESSERA_AVX512 inline L32 oracle_scalef(const L32& a, const L32& b) {
  L32 r;
  const __m512 va = _mm512_loadu_ps(a.data()), vb = _mm512_loadu_ps(b.data());
  _mm512_storeu_ps(r.data(), _mm512_maskz_scalef_ps(0xFFFF, va, vb));
  return r;
}
TESSERA_AVX512 inline L64 oracle_scalef(const L64& a, const L64& b) {
  L64 r;
  for (size_t h = 0; h < 16; h += 8) {
    const __m512d va = _mm512_loadu_pd(a.data() + h), vb = _mm512_loadu_pd(b.data() + h);
    _mm512_storeu_pd(r.data() + h, _mm512_maskz_scalef_pd(0xFF, va, vb));
  }
  return r;
}

// VFMADD213 pinned by inline asm as dst = src2*src1 + src3 with src2 = a, src1 = b, src3 = c.
// With several NaN operands the hardware returns the first in the order the operands appear in
// that product-sum (src2, src1, src3 for the 213 form), so this pins x86's answer to "a's NaN,
// then b's, then c's", the model's rule. A compiler free to pick the 132/213/231 form (as with
// std::fma or the plain intrinsic) can swap a and b in that order.
TESSERA_AVX512 inline L32 oracle_fma(const L32& a, const L32& b, const L32& c) {
  const __m512 va = _mm512_loadu_ps(a.data()), vc = _mm512_loadu_ps(c.data());
  __m512 vb = _mm512_loadu_ps(b.data());
  asm("vfmadd213ps %2, %1, %0" : "+v"(vb) : "v"(va), "v"(vc));
  L32 r;
  _mm512_storeu_ps(r.data(), vb);
  return r;
}
TESSERA_AVX512 inline L64 oracle_fma(const L64& a, const L64& b, const L64& c) {
  L64 r;
  for (size_t h = 0; h < 16; h += 8) {
    const __m512d va = _mm512_loadu_pd(a.data() + h), vc = _mm512_loadu_pd(c.data() + h);
    __m512d vb = _mm512_loadu_pd(b.data() + h);
    asm("vfmadd213pd %2, %1, %0" : "+v"(vb) : "v"(va), "v"(vc));
    _mm512_storeu_pd(r.data() + h, vb);
  }
  return r;
}
TESSERA_AVX512 inline L32 oracle_add(const L32& a, const L32& b) {
  __m512 va = _mm512_loadu_ps(a.data());
  const __m512 vb = _mm512_loadu_ps(b.data());
  asm("vaddps %1, %0, %0" : "+v"(va) : "v"(vb));  // dst = src1 (a) + src2 (b)
  L32 r;
  _mm512_storeu_ps(r.data(), va);
  return r;
}
TESSERA_AVX512 inline L64 oracle_add(const L64& a, const L64& b) {
  L64 r;
  for (size_t h = 0; h < 16; h += 8) {
    __m512d va = _mm512_loadu_pd(a.data() + h);
    const __m512d vb = _mm512_loadu_pd(b.data() + h);
    asm("vaddpd %1, %0, %0" : "+v"(va) : "v"(vb));
    _mm512_storeu_pd(r.data() + h, va);
  }
  return r;
}
TESSERA_AVX512 inline L32 oracle_mul(const L32& a, const L32& b) {
  __m512 va = _mm512_loadu_ps(a.data());
  const __m512 vb = _mm512_loadu_ps(b.data());
  asm("vmulps %1, %0, %0" : "+v"(va) : "v"(vb));
  L32 r;
  _mm512_storeu_ps(r.data(), va);
  return r;
}
TESSERA_AVX512 inline L64 oracle_mul(const L64& a, const L64& b) {
  L64 r;
  for (size_t h = 0; h < 16; h += 8) {
    __m512d va = _mm512_loadu_pd(a.data() + h);
    const __m512d vb = _mm512_loadu_pd(b.data() + h);
    asm("vmulpd %1, %0, %0" : "+v"(va) : "v"(vb));
    _mm512_storeu_pd(r.data() + h, va);
  }
  return r;
}

}  // namespace tessera::eu::avx512
