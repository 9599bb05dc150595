// Differential tests: the modelled datapath against this CPU's AVX-512 instructions (VGETEXP,
// VGETMANT, VSCALEF, VFMADD213, VADD, VMUL) and std::fma, bit for bit, NaN payloads included.
// The intrinsic code is compiled for AVX-512F per function (the project targets x86-64-v3) and
// only called after a run-time CPU check; without AVX-512 the tests skip and say why.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "eu/avx512_oracle.h"
#include "eu/eu_opcode_operands.h"
#include "eu/eu_test_operands.h"
#include "eu/fma_datapath.h"

namespace tessera::eu {
namespace {

using namespace avx512;
using testing::gen_binary;
using testing::gen_fma;
using testing::gen_scalef;
using testing::gen_unary;
using testing::Rng;

// clang-format off
#define TS_REQUIRE_AVX512F()                                                                       \
  do {                                                                                             \
    if (!cpu_has_avx512f())                                                                        \
      GTEST_SKIP() << "this CPU lacks AVX-512F, so the VGETEXP/VGETMANT/VSCALEF oracle cannot run"; \
  } while (0)
// clang-format on

// ---- Comparison bookkeeping -----------------------------------------------------------------

template <class F>
struct Tally {
  uint64_t lanes = 0;
  uint64_t mismatches = 0;
  std::string first;  // the first few mismatches, for the failure message

  void compare(const char* what, int imm, const Lanes<F>& a, const Lanes<F>& b, const Lanes<F>& c,
               const Lanes<F>& model, const Lanes<F>& oracle) {
    for (size_t i = 0; i < 16; ++i) {
      ++lanes;
      if (model[i] == oracle[i]) continue;
      if (++mismatches <= 8) {
        char line[256];
        std::snprintf(line, sizeof line, "%s imm %d: a=%#llx b=%#llx c=%#llx model=%#llx oracle=%#llx\n", what, imm,
                      (unsigned long long)a[i], (unsigned long long)b[i], (unsigned long long)c[i],
                      (unsigned long long)model[i], (unsigned long long)oracle[i]);
        first += line;
      }
    }
  }
};

template <class F>
Lanes<F> run_model(Opcode op, const Lanes<F>& a, const Lanes<F>& b, const Lanes<F>& c, uint8_t imm,
                   EuCounters& counters) {
  Lanes<F> out{};
  execute16<F>(op, a, b, c, imm, out, 0xFFFF, counters);
  return out;
}

// Feeds `lanes` operands (generated per lane by gen(rng, a, b, c)) through the model and the
// oracle in 16-lane batches. Returns the tally.
template <class F, class Gen, class Oracle>
Tally<F> differential(Opcode op, uint8_t imm, uint64_t lanes, uint64_t seed, Gen gen, Oracle oracle) {
  Tally<F> t;
  EuCounters counters;
  Rng rng(seed);
  Lanes<F> a{}, b{}, c{};
  for (uint64_t n = 0; n < lanes; n += 16) {
    for (size_t i = 0; i < 16; ++i) gen(rng, a[i], b[i], c[i]);
    t.compare(opcode_name(op), imm, a, b, c, run_model<F>(op, a, b, c, imm, counters), oracle(a, b, c));
  }
  return t;
}

// Runs every pair (or triple) of special operands through the model and the oracle.
template <class F, class Oracle>
Tally<F> special_cross(Opcode op, uint8_t imm, int arity, Oracle oracle) {
  const auto s = testing::special_operands<F>();
  std::vector<std::array<typename F::Bits, 3>> cases;
  for (auto x : s)
    for (auto y : (arity >= 2 ? s : std::vector<typename F::Bits>{0}))
      for (auto z : (arity >= 3 ? s : std::vector<typename F::Bits>{0})) cases.push_back({x, y, z});
  while (cases.size() % 16 != 0) cases.push_back(cases.front());
  Tally<F> t;
  EuCounters counters;
  for (size_t base = 0; base < cases.size(); base += 16) {
    Lanes<F> a{}, b{}, c{};
    for (size_t i = 0; i < 16; ++i) {
      a[i] = cases[base + i][0];
      b[i] = cases[base + i][1];
      c[i] = cases[base + i][2];
    }
    t.compare(opcode_name(op), imm, a, b, c, run_model<F>(op, a, b, c, imm, counters), oracle(a, b, c));
  }
  return t;
}

#define TS_EXPECT_NO_MISMATCH(tally) \
  EXPECT_EQ((tally).mismatches, 0u) << (tally).lanes << " lanes compared; first mismatches:\n" << (tally).first

// Lane counts. The total over every test here is >= 10,000,000 lanes compared with an oracle
// (about 1 s on one core in a Release build).
constexpr uint64_t kGetexpLanes = 1'000'000;       // per precision
constexpr uint64_t kGetexpImmLanes = 500'000;      // x 3 immediates per precision
constexpr uint64_t kGetmantLanesPerImm = 150'000;  // x 16 immediates per precision
constexpr uint64_t kScalefLanes = 1'500'000;       // per precision
constexpr uint64_t kFmaLanes = 2'500'000;          // per precision (1/8 also against std::fma)
constexpr uint64_t kAddMulLanes = 300'000;         // per precision, each
static_assert(2 * (kGetexpLanes + 3 * kGetexpImmLanes + 16 * kGetmantLanesPerImm + kScalefLanes + kFmaLanes +
                   2 * kAddMulLanes) >=
              10'000'000);

template <class L>
auto unary(L (*f)(const L&)) {
  return [f](const L& a, const L&, const L&) { return f(a); };
}
template <class L>
auto binary(L (*f)(const L&, const L&)) {
  return [f](const L& a, const L& b, const L&) { return f(a, b); };
}

// ---- Tests ---------------------------------------------------------------------------------------

template <class F>
void check_getexp() {
  using L = Lanes<F>;
  auto o = unary<L>(&oracle_getexp);
  TS_EXPECT_NO_MISMATCH(special_cross<F>(Opcode::getexp, 0, 1, o));
  TS_EXPECT_NO_MISMATCH(differential<F>(Opcode::getexp, 0, kGetexpLanes, 11, gen_unary<F>, o));
}
// getexp imm 1..3 have no x86 counterpart: they are checked against the spec's closed forms,
// with ue taken from VGETEXP and the first fraction bit from VGETMANT (interval [1, 2)).
template <class F>
void check_getexp_immediates() {
  using L = Lanes<F>;
  using Native = typename F::Native;
  Tally<F> t;
  EuCounters counters;
  Rng rng(51);
  L a{}, zero{};
  for (uint64_t n = 0; n < kGetexpImmLanes; n += 16) {
    for (auto& x : a) x = testing::random_operand<F>(rng);
    const L ue = oracle_getexp(a);
    const L mant = oracle_getmant(a, 0);
    for (uint8_t imm = 1; imm <= 3; ++imm) {
      L expected;
      for (size_t i = 0; i < 16; ++i) {
        const Native e = from_bits<F>(ue[i]);
        if (!std::isfinite(e)) {  // NaN, zero and infinity give the same result for every imm
          expected[i] = ue[i];
          continue;
        }
        const int u = int(e);
        const bool first_fraction_bit = std::fabs(from_bits<F>(mant[i])) >= Native(1.5);
        const int v = imm == 1 ? ((u + 1) >> 1) : imm == 2 ? u + 1 : u + (first_fraction_bit ? 1 : 0);
        expected[i] = to_bits<F>(Native(v));
      }
      t.compare("getexp", imm, a, zero, zero, run_model<F>(Opcode::getexp, a, zero, zero, imm, counters), expected);
    }
  }
  TS_EXPECT_NO_MISMATCH(t);
}
TEST(Avx512Oracle, GetexpImmediatesMatchClosedFormsBinary32) {
  TS_REQUIRE_AVX512F();
  check_getexp_immediates<Binary32>();
}
TEST(Avx512Oracle, GetexpImmediatesMatchClosedFormsBinary64) {
  TS_REQUIRE_AVX512F();
  check_getexp_immediates<Binary64>();
}

TEST(Avx512Oracle, GetexpBinary32) {
  TS_REQUIRE_AVX512F();
  check_getexp<Binary32>();
}
TEST(Avx512Oracle, GetexpBinary64) {
  TS_REQUIRE_AVX512F();
  check_getexp<Binary64>();
}

template <class F>
void check_getmant() {
  using L = Lanes<F>;
  for (uint8_t imm = 0; imm < 16; ++imm) {
    SCOPED_TRACE("interval " + std::to_string(imm & 3) + " signctrl " + std::to_string(imm >> 2));
    auto o = [imm](const L& a, const L&, const L&) { return oracle_getmant(a, imm); };
    TS_EXPECT_NO_MISMATCH(special_cross<F>(Opcode::getmant, imm, 1, o));
    TS_EXPECT_NO_MISMATCH(differential<F>(Opcode::getmant, imm, kGetmantLanesPerImm, 100 + imm, gen_unary<F>, o));
  }
}
TEST(Avx512Oracle, GetmantAllIntervalsAndSignControlsBinary32) {
  TS_REQUIRE_AVX512F();
  check_getmant<Binary32>();
}
TEST(Avx512Oracle, GetmantAllIntervalsAndSignControlsBinary64) {
  TS_REQUIRE_AVX512F();
  check_getmant<Binary64>();
}

template <class F>
void check_scalef() {
  using L = Lanes<F>;
  auto o = binary<L>(&oracle_scalef);
  TS_EXPECT_NO_MISMATCH(special_cross<F>(Opcode::scalef, 0, 2, o));
  TS_EXPECT_NO_MISMATCH(differential<F>(Opcode::scalef, 0, kScalefLanes, 21, gen_scalef<F>, o));
}
TEST(Avx512Oracle, ScalefBinary32) {
  TS_REQUIRE_AVX512F();
  check_scalef<Binary32>();
}
TEST(Avx512Oracle, ScalefBinary64) {
  TS_REQUIRE_AVX512F();
  check_scalef<Binary64>();
}

template <class F>
void check_fma() {
  using L = Lanes<F>;
  auto o = [](const L& a, const L& b, const L& c) { return oracle_fma(a, b, c); };
  TS_EXPECT_NO_MISMATCH(special_cross<F>(Opcode::fma, 0, 3, o));
  TS_EXPECT_NO_MISMATCH(differential<F>(Opcode::fma, 0, kFmaLanes, 31, gen_fma<F>, o));
  // The same inputs against std::fma, lane by lane. Where a and b are both NaN, which one
  // std::fma returns depends on the instruction form the compiler picked (IEEE 754 leaves the
  // choice open), so there the lane only has to be a NaN: it is given the model's answer.
  auto std_fma = [](const L& a, const L& b, const L& c) {
    EuCounters unused;
    L r;
    for (size_t i = 0; i < 16; ++i) {
      r[i] = to_bits<F>(std::fma(from_bits<F>(a[i]), from_bits<F>(b[i]), from_bits<F>(c[i])));
      const bool both_nan = std::isnan(from_bits<F>(a[i])) && std::isnan(from_bits<F>(b[i]));
      if (both_nan && std::isnan(from_bits<F>(r[i]))) r[i] = execute<F>(Opcode::fma, a[i], b[i], c[i], 0, unused);
    }
    return r;
  };
  TS_EXPECT_NO_MISMATCH(differential<F>(Opcode::fma, 0, kFmaLanes / 8, 31, gen_fma<F>, std_fma));
}
TEST(Avx512Oracle, FmaBinary32) {
  TS_REQUIRE_AVX512F();
  check_fma<Binary32>();
}
TEST(Avx512Oracle, FmaBinary64) {
  TS_REQUIRE_AVX512F();
  check_fma<Binary64>();
}

template <class F>
void check_add_mul() {
  using L = Lanes<F>;
  auto add = binary<L>(&oracle_add);
  auto mul = binary<L>(&oracle_mul);
  TS_EXPECT_NO_MISMATCH(special_cross<F>(Opcode::add, 0, 2, add));
  TS_EXPECT_NO_MISMATCH(special_cross<F>(Opcode::mul, 0, 2, mul));
  TS_EXPECT_NO_MISMATCH(differential<F>(Opcode::add, 0, kAddMulLanes, 41, gen_binary<F>, add));
  TS_EXPECT_NO_MISMATCH(differential<F>(Opcode::mul, 0, kAddMulLanes, 42, gen_binary<F>, mul));
}
TEST(Avx512Oracle, AddMulBinary32) {
  TS_REQUIRE_AVX512F();
  check_add_mul<Binary32>();
}
TEST(Avx512Oracle, AddMulBinary64) {
  TS_REQUIRE_AVX512F();
  check_add_mul<Binary64>();
}

}  // namespace
}  // namespace tessera::eu
