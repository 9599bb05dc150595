// Test-only: golden vectors. This CPU's AVX-512 results (VGETEXP, VGETMANT, VSCALEF, VFMADD213,
// VADD, VMUL) recorded once by gen/eu_golden_record.cpp and committed as kGoldenFile, so that
// eu_golden_test.cpp checks the datapath model against hardware on machines without AVX-512.
//
// Operands are not stored: the recorder and the test rebuild them from plan() (special-class
// crosses, and random streams from kSeed and the section's name). Results are stored raw for the
// crosses and the first lanes of each random stream, and as two digests per kBlockLanes lanes
// for the rest: the digests catch any difference and, when one lane of a block differs, name it.
//
// File layout (all integers little-endian):
//   header   "TSEUGV01", u64 seed, u32 block lanes, u32 section count
//   section  char opcode[12] (NUL-padded name), u8 bits (32/64), u8 imm, u8 inputs (0 special
//            cross, 1 random), u8 0, u32 lanes, u32 raw lanes, u64 operands digest,
//            then raw lanes x (bits/8) bytes of results,
//            then (lanes - raw lanes) / block lanes x {u64 sum, u64 weighted} (BlockDigest)
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "eu/eu_opcode.h"
#include "eu/eu_opcode_operands.h"
#include "eu/eu_test_operands.h"
#include "eu/float_format.h"

namespace tessera::eu::golden {

inline constexpr const char* kGoldenFile = "renderer/eu/golden/avx512_vectors.bin";  // in the source tree
inline constexpr char kMagic[8] = {'T', 'S', 'E', 'U', 'G', 'V', '0', '1'};
inline constexpr uint64_t kSeed = 0x45554F5241434C45;  // "EUORACLE"
inline constexpr uint32_t kBlockLanes = 256;

enum class Inputs : uint8_t { special_cross = 0, random = 1 };

struct Section {
  Opcode op;
  int bits;  // 32: binary32, 64: binary64
  uint8_t imm;
  Inputs inputs;
  uint32_t lanes;      // a multiple of 16 (one SIMD issue)
  uint32_t raw_lanes;  // results stored as they are; the other lanes as block digests

  bool operator==(const Section&) const = default;
};

// The opcode names the file uses (opcode_name lives in libtessera; the recorder does not link it).
inline const char* op_name(Opcode op) {
  switch (op) {
    case Opcode::fma: return "fma";
    case Opcode::add: return "add";
    case Opcode::mul: return "mul";
    case Opcode::getexp: return "getexp";
    case Opcode::getmant: return "getmant";
    case Opcode::scalef: return "scalef";
    default: return "";
  }
}
inline std::optional<Opcode> op_from_name(std::string_view name) {
  for (Opcode op : {Opcode::fma, Opcode::add, Opcode::mul, Opcode::getexp, Opcode::getmant, Opcode::scalef})
    if (name == op_name(op)) return op;
  return std::nullopt;
}
inline const char* x86_mnemonic(Opcode op) {
  switch (op) {
    case Opcode::fma: return "VFMADD213";
    case Opcode::add: return "VADD";
    case Opcode::mul: return "VMUL";
    case Opcode::getexp: return "VGETEXP";
    case Opcode::getmant: return "VGETMANT";
    case Opcode::scalef: return "VSCALEF";
    default: return "?";
  }
}
inline int arity(Opcode op) { return op == Opcode::fma ? 3 : (op == Opcode::getexp || op == Opcode::getmant) ? 1 : 2; }

// e.g. "getmant.b64.imm5.random": names the section in messages and seeds its random stream.
inline std::string section_name(const Section& s) {
  return std::string(op_name(s.op)) + ".b" + std::to_string(s.bits) + ".imm" + std::to_string(s.imm) +
         (s.inputs == Inputs::random ? ".random" : ".special_cross");
}

// The random stream's seed: kSeed xor the FNV-1a hash of the section's name, so adding or
// reordering sections leaves the other streams as they are.
inline uint64_t stream_seed(const Section& s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (char ch : section_name(s)) h = (h ^ uint8_t(ch)) * 0x100000001B3ull;
  return kSeed ^ h;
}

// Special classes for the one- and two-operand crosses: the test set's 28 (zeros, extreme
// subnormals and normals, 1, 0.5, 1.5, 3, infinities, quiet and signalling NaNs with payloads)
// plus powers of two (2, 4, 0.25, the largest subnormal one, 2^(p-1) and 2^emax, scales beyond
// scalef's exponent range) and the neighbours of 1; both signs. fma crosses only the 28 (28^3).
template <class F>
std::vector<typename F::Bits> special_classes() {
  using Fm = Format<F>;
  using Bits = typename F::Bits;
  auto pow2 = [](int e) { return Bits(e + F::kBias) << F::kFracBits; };
  std::vector<Bits> out = testing::special_operands<F>();
  for (Bits m : {pow2(1), pow2(2), pow2(-2), Fm::kQuiet, pow2(F::kFracBits), pow2(Fm::kEmax), Bits(Fm::kOne - 1),
                 Bits(Fm::kOne + 1)}) {
    out.push_back(m);
    out.push_back(m | Fm::kSign);
  }
  return out;
}

template <class F>
struct Operands {
  std::vector<typename F::Bits> a, b, c;
};

// Every lane's operands for a section: the cross of special_classes (fma: of the 28), padded to
// whole issues with the first case; or the opcode's generator from stream_seed.
template <class F>
Operands<F> operands(const Section& s) {
  using Bits = typename F::Bits;
  Operands<F> o;
  if (s.inputs == Inputs::special_cross) {
    const int n = arity(s.op);
    const std::vector<Bits> sp = n == 3 ? testing::special_operands<F>() : special_classes<F>();
    const std::vector<Bits> none = {0};
    for (Bits x : sp)
      for (Bits y : n >= 2 ? sp : none)
        for (Bits z : n >= 3 ? sp : none) {
          o.a.push_back(x);
          o.b.push_back(y);
          o.c.push_back(z);
        }
    while (o.a.size() % 16 != 0) {
      o.a.push_back(o.a.front());
      o.b.push_back(o.b.front());
      o.c.push_back(o.c.front());
    }
    return o;
  }
  testing::Rng rng(stream_seed(s));
  o.a.resize(s.lanes);
  o.b.resize(s.lanes);
  o.c.resize(s.lanes);
  for (size_t i = 0; i < s.lanes; ++i) {
    switch (s.op) {
      case Opcode::getexp:
      case Opcode::getmant: testing::gen_unary<F>(rng, o.a[i], o.b[i], o.c[i]); break;
      case Opcode::scalef: testing::gen_scalef<F>(rng, o.a[i], o.b[i], o.c[i]); break;
      case Opcode::fma: testing::gen_fma<F>(rng, o.a[i], o.b[i], o.c[i]); break;
      default: testing::gen_binary<F>(rng, o.a[i], o.b[i], o.c[i]); break;
    }
  }
  return o;
}

template <class F>
uint32_t cross_lanes(Opcode op) {
  const Section probe{op, F::kBits, 0, Inputs::special_cross, 0, 0};
  return uint32_t(operands<F>(probe).a.size());
}

// What the file holds, in order. Random lanes per instruction and precision: 2^18 for getexp,
// getmant (2^14 per immediate), scalef and fma; 2^17 for add and mul.
inline std::vector<Section> plan() {
  std::vector<Section> p;
  auto add = [&p](Opcode op, int bits, uint8_t imm, uint32_t random_lanes, uint32_t raw_lanes) {
    const uint32_t cross = bits == 32 ? cross_lanes<Binary32>(op) : cross_lanes<Binary64>(op);
    p.push_back({op, bits, imm, Inputs::special_cross, cross, cross});
    p.push_back({op, bits, imm, Inputs::random, random_lanes, raw_lanes});
  };
  for (int bits : {32, 64}) {
    add(Opcode::getexp, bits, 0, 1u << 18, 2048);
    for (uint8_t imm = 0; imm < 16; ++imm) add(Opcode::getmant, bits, imm, 1u << 14, 512);
    add(Opcode::scalef, bits, 0, 1u << 18, 2048);
    add(Opcode::fma, bits, 0, 1u << 18, 2048);
    add(Opcode::add, bits, 0, 1u << 17, 1024);
    add(Opcode::mul, bits, 0, 1u << 17, 1024);
  }
  return p;
}

// ---- Block digests ---------------------------------------------------------------------------
// Per block, sums over its lanes i of h_i and (i + 1) * h_i modulo the Mersenne prime 2^61 - 1,
// h_i a hash of lane i's result. If exactly lane j differs, both sums change, by d and (j + 1) * d,
// so their ratio names j; if several differ, the ratio is a residue far outside the block.

inline constexpr uint64_t kPrime = (uint64_t(1) << 61) - 1;

inline uint64_t mod_prime(Uint128 x) {
  uint64_t r = uint64_t(x & kPrime) + uint64_t(x >> 61);  // x < 2^122, so x >> 61 < 2^61
  r = (r & kPrime) + (r >> 61);
  return r >= kPrime ? r - kPrime : r;
}
inline uint64_t mul_mod(uint64_t a, uint64_t b) { return mod_prime(Uint128(a) * b); }
inline uint64_t add_mod(uint64_t a, uint64_t b) { return mod_prime(Uint128(a) + b); }
inline uint64_t sub_mod(uint64_t a, uint64_t b) { return add_mod(a, kPrime - b); }
inline uint64_t inverse_mod(uint64_t a) {  // a != 0; Fermat: a^(p-2)
  uint64_t r = 1, e = kPrime - 2;
  for (; e; e >>= 1, a = mul_mod(a, a))
    if (e & 1) r = mul_mod(r, a);
  return r;
}

// splitmix64's finaliser (a bijection on 64 bits), reduced: results that differ hash apart.
inline uint64_t lane_hash(uint64_t result) {
  uint64_t z = result;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return mod_prime(z ^ (z >> 31));
}

struct BlockDigest {
  uint64_t sum = 0;
  uint64_t weighted = 0;
  bool operator==(const BlockDigest&) const = default;
};

inline BlockDigest block_digest(const uint64_t* results, size_t lanes) {
  BlockDigest d;
  for (size_t i = 0; i < lanes; ++i) {
    const uint64_t h = lane_hash(results[i]);
    d.sum = add_mod(d.sum, h);
    d.weighted = add_mod(d.weighted, mul_mod(i + 1, h));
  }
  return d;
}

// The one lane in which `actual`'s block differs from `recorded`'s, if exactly one does.
inline std::optional<size_t> single_differing_lane(const BlockDigest& recorded, const BlockDigest& actual,
                                                   size_t lanes) {
  const uint64_t d = sub_mod(actual.sum, recorded.sum);
  if (d == 0) return std::nullopt;
  const uint64_t index = mul_mod(sub_mod(actual.weighted, recorded.weighted), inverse_mod(d));
  if (index == 0 || index > lanes) return std::nullopt;
  return size_t(index - 1);
}

// ---- The file ----------------------------------------------------------------------------------

// A hash of every lane's operands: it tells a file recorded from other operands (a generator or
// the special classes changed since) from a model that disagrees with the hardware.
template <class F>
uint64_t operands_digest(const Operands<F>& o) {
  uint64_t d = 0;
  for (size_t i = 0; i < o.a.size(); ++i) d = lane_hash(lane_hash(lane_hash(d ^ o.a[i]) ^ o.b[i]) ^ o.c[i]);
  return d;
}

struct SectionRecord {
  Section section;
  uint64_t operands_digest = 0;
  std::vector<uint64_t> raw;         // the first raw_lanes results, zero-extended
  std::vector<BlockDigest> digests;  // one per kBlockLanes of the remaining lanes
};

// A section's record from its operands and all its lanes' results (the recorder's from
// hardware, the test's from the model).
template <class F>
SectionRecord make_record(const Section& s, const Operands<F>& o, const std::vector<uint64_t>& results) {
  SectionRecord r{s, operands_digest(o), {results.begin(), results.begin() + s.raw_lanes}, {}};
  for (size_t base = s.raw_lanes; base < s.lanes; base += kBlockLanes)
    r.digests.push_back(block_digest(results.data() + base, kBlockLanes));
  return r;
}

inline void put(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(char(uint8_t(v >> (8 * i))));
}

inline std::string serialize(const std::vector<SectionRecord>& records) {
  std::string out(kMagic, sizeof kMagic);
  put(out, kSeed, 8);
  put(out, kBlockLanes, 4);
  put(out, records.size(), 4);
  for (const SectionRecord& r : records) {
    const Section& s = r.section;
    char name[12] = {};
    std::strncpy(name, op_name(s.op), sizeof name - 1);
    out.append(name, sizeof name);
    put(out, uint64_t(s.bits), 1);
    put(out, s.imm, 1);
    put(out, uint64_t(s.inputs), 1);
    put(out, 0, 1);
    put(out, s.lanes, 4);
    put(out, s.raw_lanes, 4);
    put(out, r.operands_digest, 8);
    for (uint64_t v : r.raw) put(out, v, s.bits / 8);
    for (const BlockDigest& d : r.digests) {
      put(out, d.sum, 8);
      put(out, d.weighted, 8);
    }
  }
  return out;
}

struct GoldenFile {
  uint64_t seed = 0;
  uint32_t block_lanes = 0;
  std::vector<SectionRecord> sections;
};

// Parses `bytes`; on a malformed file returns nullopt and says why in `error`.
inline std::optional<GoldenFile> parse(std::string_view bytes, std::string& error) {
  size_t at = 0;
  auto take = [&](int n, uint64_t& v) {
    if (bytes.size() - at < size_t(n)) return false;
    v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(uint8_t(bytes[at + i])) << (8 * i);
    at += size_t(n);
    return true;
  };
  auto fail = [&error](std::string why) -> std::optional<GoldenFile> {
    error = std::move(why);
    return std::nullopt;
  };
  GoldenFile f;
  uint64_t v = 0, count = 0;
  if (bytes.substr(0, 8) != std::string_view(kMagic, 8)) return fail("not a golden-vector file (magic)");
  at = 8;
  if (!take(8, f.seed) || !take(4, v) || !take(4, count)) return fail("truncated header");
  f.block_lanes = uint32_t(v);
  if (f.block_lanes == 0) return fail("zero block size");
  for (uint64_t k = 0; k < count; ++k) {
    if (bytes.size() - at < 12) return fail("truncated section header");
    const std::string_view name = bytes.substr(at, 12);
    at += 12;
    const std::optional<Opcode> op = op_from_name(name.substr(0, name.find('\0')));
    if (!op) return fail("unknown opcode in section " + std::to_string(k));
    uint64_t bits = 0, imm = 0, inputs = 0, pad = 0, lanes = 0, raw = 0, operands = 0;
    if (!take(1, bits) || !take(1, imm) || !take(1, inputs) || !take(1, pad) || !take(4, lanes) || !take(4, raw) ||
        !take(8, operands))
      return fail("truncated section header");
    if ((bits != 32 && bits != 64) || inputs > 1 || raw > lanes || (lanes - raw) % f.block_lanes != 0)
      return fail("malformed section header " + std::to_string(k));
    SectionRecord r{{*op, int(bits), uint8_t(imm), Inputs(inputs), uint32_t(lanes), uint32_t(raw)}, operands, {}, {}};
    r.raw.resize(raw);
    for (uint64_t& x : r.raw)
      if (!take(int(bits / 8), x)) return fail("truncated results in " + section_name(r.section));
    r.digests.resize((lanes - raw) / f.block_lanes);
    for (BlockDigest& d : r.digests)
      if (!take(8, d.sum) || !take(8, d.weighted)) return fail("truncated digests in " + section_name(r.section));
    f.sections.push_back(std::move(r));
  }
  if (at != bytes.size()) return fail("trailing bytes after the last section");
  return f;
}

}  // namespace tessera::eu::golden
