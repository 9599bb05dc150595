// The datapath model against golden vectors: results of an AVX-512 CPU's VGETEXP, VGETMANT (all
// 16 immediates), VSCALEF, VFMADD213, VADD and VMUL, recorded by gen/eu_golden_record.cpp and
// committed (eu_golden_vectors.h: the plan and the file layout). Unlike avx512_oracle_test.cpp,
// which compares with the live instructions, this runs on every machine.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "eu/eu_golden_vectors.h"
#include "eu/fma_datapath.h"

namespace tessera::eu::golden {
namespace {

struct Loaded {
  std::optional<GoldenFile> file;
  std::string error;
};

const Loaded& loaded() {
  static const Loaded l = [] {
    Loaded r;
    const std::filesystem::path path = std::filesystem::path(TESSERA_SOURCE_DIR) / kGoldenFile;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      r.error = "cannot open " + path.string();
      return r;
    }
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    r.file = parse(bytes, r.error);
    if (!r.file) r.error = path.string() + ": " + r.error;
    return r;
  }();
  return l;
}

#define TS_REQUIRE_GOLDEN_FILE() ASSERT_TRUE(loaded().file.has_value()) << loaded().error

std::string hex(uint64_t v) {
  char s[24];
  std::snprintf(s, sizeof s, "%#" PRIx64, v);
  return s;
}

template <class F>
std::vector<uint64_t> model_results(const Section& s, const Operands<F>& o) {
  std::vector<uint64_t> results;
  results.reserve(o.a.size());
  EuCounters counters;
  Lanes<F> a{}, b{}, c{}, out{};
  for (size_t base = 0; base < o.a.size(); base += kSimdWidth) {
    for (size_t i = 0; i < size_t(kSimdWidth); ++i) {
      a[i] = o.a[base + i];
      b[i] = o.b[base + i];
      c[i] = o.c[base + i];
    }
    execute16<F>(s.op, a, b, c, s.imm, out, 0xFFFF, counters);
    results.insert(results.end(), out.begin(), out.end());
  }
  return results;
}

// "VGETMANT imm 5 (interval 1, signctrl 1) binary64, getmant.b64.imm5.random lane 17: a=0x...: model 0x..."
template <class F>
std::string describe(const Section& s, const Operands<F>& o, size_t lane, uint64_t model) {
  std::string line = x86_mnemonic(s.op);
  if (s.op == Opcode::getmant)
    line += " imm " + std::to_string(s.imm) + " (interval " + std::to_string(s.imm & 3) + ", signctrl " +
            std::to_string(s.imm >> 2) + ")";
  line += " binary" + std::to_string(s.bits) + ", " + section_name(s) + " lane " + std::to_string(lane) +
          ": a=" + hex(o.a[lane]);
  if (arity(s.op) >= 2) line += " b=" + hex(o.b[lane]);
  if (arity(s.op) >= 3) line += " c=" + hex(o.c[lane]);
  return line + ": model " + hex(model);
}

struct Mismatches {
  size_t lanes_compared = 0;
  size_t count = 0;
  std::string first;  // the first few, for the failure message

  void add(const std::string& line) {
    if (++count <= 8) first += line + "\n";
  }
};

// Raw lanes one by one; digest blocks as a whole, naming the lane when only one differs.
template <class F>
void compare(const SectionRecord& rec, const Operands<F>& o, const std::vector<uint64_t>& model, Mismatches& m) {
  const Section& s = rec.section;
  m.lanes_compared += s.lanes;
  for (size_t i = 0; i < s.raw_lanes; ++i)
    if (model[i] != rec.raw[i]) m.add(describe(s, o, i, model[i]) + ", recorded " + hex(rec.raw[i]));
  for (size_t k = 0; k < rec.digests.size(); ++k) {
    const size_t base = s.raw_lanes + k * kBlockLanes;
    const BlockDigest actual = block_digest(model.data() + base, kBlockLanes);
    if (actual == rec.digests[k]) continue;
    if (const auto lane = single_differing_lane(rec.digests[k], actual, kBlockLanes))
      m.add(describe(s, o, base + *lane, model[base + *lane]) +
            ", the recorded result differs (the only lane of its digest block that does)");
    else
      m.add(std::string(x86_mnemonic(s.op)) + " binary" + std::to_string(s.bits) + ", " + section_name(s) +
            ": several of lanes " + std::to_string(base) + ".." + std::to_string(base + kBlockLanes - 1) +
            " differ from the recorded results (digest block " + std::to_string(k) + ")");
  }
}

template <class F>
void compare_with_model(const SectionRecord& rec, Mismatches& m) {
  const Operands<F> o = operands<F>(rec.section);
  if (operands_digest(o) != rec.operands_digest) {
    ADD_FAILURE() << section_name(rec.section) << ": the operands rebuilt here are not the recorded ones (a generator "
                  << "or the special classes changed); record the file again: docs/eu.md, \"Golden vectors\"";
    return;
  }
  compare<F>(rec, o, model_results<F>(rec.section, o), m);
}

struct Instruction {
  Opcode op;
  int bits;
};

void PrintTo(const Instruction& i, std::ostream* os) { *os << op_name(i.op) << " binary" << i.bits; }

class ModelMatchesRecordedHardware : public ::testing::TestWithParam<Instruction> {};

TEST_P(ModelMatchesRecordedHardware, EveryVector) {
  TS_REQUIRE_GOLDEN_FILE();
  const Instruction want = GetParam();
  size_t sections = 0;
  Mismatches m;
  for (const SectionRecord& rec : loaded().file->sections) {
    if (rec.section.op != want.op || rec.section.bits != want.bits) continue;
    ++sections;
    if (want.bits == 32)
      compare_with_model<Binary32>(rec, m);
    else
      compare_with_model<Binary64>(rec, m);
  }
  EXPECT_GT(sections, 0u) << "the golden file has no " << op_name(want.op) << " binary" << want.bits << " section";
  EXPECT_EQ(m.count, 0u) << m.lanes_compared << " lanes compared with the recorded " << x86_mnemonic(want.op)
                         << " results; first mismatches:\n"
                         << m.first;
}

std::vector<Instruction> recorded_instructions() {
  std::vector<Instruction> out;
  for (int bits : {32, 64})
    for (Opcode op : {Opcode::getexp, Opcode::getmant, Opcode::scalef, Opcode::fma, Opcode::add, Opcode::mul})
      out.push_back({op, bits});
  return out;
}

INSTANTIATE_TEST_SUITE_P(EuGolden, ModelMatchesRecordedHardware, ::testing::ValuesIn(recorded_instructions()),
                         [](const ::testing::TestParamInfo<Instruction>& param) {
                           return std::string(op_name(param.param.op)) + "_binary" + std::to_string(param.param.bits);
                         });

// The file must be what the recorder writes today: same seed, block size and sections in the
// same order with the same lane counts, else the operands rebuilt here are not the recorded ones.
TEST(EuGolden, FileHoldsThePlan) {
  TS_REQUIRE_GOLDEN_FILE();
  const GoldenFile& f = *loaded().file;
  const std::string regenerate = " (record the file again: docs/eu.md, \"Golden vectors\")";
  EXPECT_EQ(f.seed, kSeed) << regenerate;
  EXPECT_EQ(f.block_lanes, kBlockLanes) << regenerate;
  const std::vector<Section> p = plan();
  ASSERT_EQ(f.sections.size(), p.size()) << regenerate;
  for (size_t i = 0; i < p.size(); ++i) {
    const Section& s = f.sections[i].section;
    EXPECT_TRUE(s == p[i]) << "section " << i << " is " << section_name(s) << " with " << s.lanes << " lanes ("
                           << s.raw_lanes << " raw), the plan says " << section_name(p[i]) << " with " << p[i].lanes
                           << " (" << p[i].raw_lanes << ")" << regenerate;
  }
}

TEST(EuGolden, BlockDigestsNameTheOneDifferingLane) {
  testing::Rng rng(5);
  std::vector<uint64_t> results(kBlockLanes);
  for (uint64_t& r : results) r = rng.next();
  const BlockDigest recorded = block_digest(results.data(), kBlockLanes);
  EXPECT_FALSE(single_differing_lane(recorded, recorded, kBlockLanes).has_value());
  for (size_t lane : {size_t(0), size_t(1), size_t(137), size_t(kBlockLanes - 1)}) {
    std::vector<uint64_t> one_ulp_off = results;
    one_ulp_off[lane] += 1;
    const BlockDigest actual = block_digest(one_ulp_off.data(), kBlockLanes);
    EXPECT_NE(actual, recorded);
    EXPECT_EQ(single_differing_lane(recorded, actual, kBlockLanes), lane);
  }
  std::vector<uint64_t> two_off = results;
  two_off[3] += 1;
  two_off[200] -= 1;
  const BlockDigest actual = block_digest(two_off.data(), kBlockLanes);
  EXPECT_NE(actual, recorded);
  EXPECT_FALSE(single_differing_lane(recorded, actual, kBlockLanes).has_value());
}

// A wrong model result is reported with the instruction, precision and operand, whether its
// lane is stored raw or only in a digest block.
TEST(EuGolden, AWrongResultIsNamedWithItsOperand) {
  const Section s{Opcode::scalef, 64, 0, Inputs::random, 4096, 1024};
  const Operands<Binary64> o = operands<Binary64>(s);
  std::vector<uint64_t> results = model_results<Binary64>(s, o);
  const SectionRecord rec = make_record(s, o, results);
  Mismatches none;
  compare<Binary64>(rec, o, results, none);
  EXPECT_EQ(none.count, 0u) << none.first;

  const size_t raw_lane = 100, digest_lane = 3000;
  results[raw_lane] ^= 1;
  results[digest_lane] ^= 1;
  Mismatches m;
  compare<Binary64>(rec, o, results, m);
  EXPECT_EQ(m.count, 2u) << m.first;
  for (size_t lane : {raw_lane, digest_lane}) {
    EXPECT_NE(m.first.find("VSCALEF binary64, scalef.b64.imm0.random lane " + std::to_string(lane) +
                           ": a=" + hex(o.a[lane]) + " b=" + hex(o.b[lane])),
              std::string::npos)
        << m.first;
  }
}

TEST(EuGolden, ParseReadsWhatSerializeWritesAndRejectsTruncation) {
  const Section s{Opcode::getmant, 32, 7, Inputs::random, 768, 256};
  const Operands<Binary32> o = operands<Binary32>(s);
  std::vector<uint64_t> results(s.lanes);
  for (size_t i = 0; i < results.size(); ++i) results[i] = 0x3F800000u + i;
  const SectionRecord rec = make_record(s, o, results);
  const std::string bytes = serialize({rec});
  std::string error;
  const std::optional<GoldenFile> f = parse(bytes, error);
  ASSERT_TRUE(f.has_value()) << error;
  ASSERT_EQ(f->sections.size(), 1u);
  EXPECT_TRUE(f->sections[0].section == s);
  EXPECT_EQ(f->sections[0].operands_digest, rec.operands_digest);
  EXPECT_EQ(f->sections[0].raw, rec.raw);
  EXPECT_EQ(f->sections[0].digests, rec.digests);
  EXPECT_FALSE(parse(std::string_view(bytes).substr(0, bytes.size() - 1), error).has_value());
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
}

}  // namespace
}  // namespace tessera::eu::golden
