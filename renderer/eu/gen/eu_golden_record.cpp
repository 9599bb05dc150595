// Records the golden vectors (eu_golden_vectors.h) from this CPU's AVX-512 instructions:
//   tessera_eu_golden_record OUTPUT        writes the file (renderer/eu/golden/avx512_vectors.bin)
//   tessera_eu_golden_record --check FILE  records again in memory, compares with FILE byte for byte
// Exits 77 (ctest's skip code here) when the CPU lacks AVX-512F. Built only where the compiler
// can target AVX-512; the instructions are compiled per function (avx512_oracle.h), so the rest
// of the program runs on any x86-64-v3 CPU and can say why it stops.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "eu/avx512_oracle.h"
#include "eu/eu_golden_vectors.h"

namespace tessera::eu::golden {
namespace {

template <class F>
Lanes<F> hardware(Opcode op, uint8_t imm, const Lanes<F>& a, const Lanes<F>& b, const Lanes<F>& c) {
  switch (op) {
    case Opcode::getexp: return avx512::oracle_getexp(a);
    case Opcode::getmant: return avx512::oracle_getmant(a, imm);
    case Opcode::scalef: return avx512::oracle_scalef(a, b);
    case Opcode::fma: return avx512::oracle_fma(a, b, c);
    case Opcode::add: return avx512::oracle_add(a, b);
    default: return avx512::oracle_mul(a, b);
  }
}

template <class F>
SectionRecord record_section(const Section& s) {
  const Operands<F> o = operands<F>(s);
  std::vector<uint64_t> results;
  results.reserve(o.a.size());
  Lanes<F> a{}, b{}, c{};
  for (size_t base = 0; base < o.a.size(); base += kSimdWidth) {
    for (size_t i = 0; i < size_t(kSimdWidth); ++i) {
      a[i] = o.a[base + i];
      b[i] = o.b[base + i];
      c[i] = o.c[base + i];
    }
    for (auto r : hardware<F>(s.op, s.imm, a, b, c)) results.push_back(r);
  }
  return make_record(s, o, results);
}

std::vector<SectionRecord> record() {
  std::vector<SectionRecord> records;
  for (const Section& s : plan())
    records.push_back(s.bits == 32 ? record_section<Binary32>(s) : record_section<Binary64>(s));
  return records;
}

// Which section of the stored file first differs from the records made now, for the message.
std::string first_differing_section(const std::string& stored, const std::vector<SectionRecord>& records) {
  std::string error;
  const std::optional<GoldenFile> f = parse(stored, error);
  if (!f) return "the stored file does not parse: " + error;
  for (size_t i = 0; i < records.size() && i < f->sections.size(); ++i) {
    const SectionRecord& a = f->sections[i];
    const SectionRecord& b = records[i];
    if (!(a.section == b.section) || a.operands_digest != b.operands_digest || a.raw != b.raw || a.digests != b.digests)
      return "first differing section: " + std::to_string(i) + " (" + section_name(b.section) + ")";
  }
  return "sections: " + std::to_string(f->sections.size()) + " stored, " + std::to_string(records.size()) + " now";
}

int check(const std::string& path, const std::vector<SectionRecord>& records) {
  const std::string recorded = serialize(records);
  std::ifstream in(path, std::ios::binary);
  const std::string stored{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (!in.good() && !in.eof()) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return 1;
  }
  if (stored == recorded) {
    std::printf("%s: the %zu bytes recorded now are identical\n", path.c_str(), recorded.size());
    return 0;
  }
  size_t at = 0;
  while (at < stored.size() && at < recorded.size() && stored[at] == recorded[at]) ++at;
  std::fprintf(stderr, "%s (%zu bytes) differs from what this CPU records now (%zu bytes), first at byte %zu; %s\n",
               path.c_str(), stored.size(), recorded.size(), at, first_differing_section(stored, records).c_str());
  return 1;
}

}  // namespace
}  // namespace tessera::eu::golden

int main(int argc, char** argv) {
  using namespace tessera::eu::golden;
  const bool checking = argc == 3 && std::string(argv[1]) == "--check";
  if (argc != 2 && !checking) {
    std::fprintf(stderr, "usage: %s OUTPUT | --check FILE\n", argv[0]);
    return 2;
  }
  if (!tessera::eu::avx512::cpu_has_avx512f()) {
    std::fprintf(stderr, "this CPU lacks AVX-512F: there is no VGETEXP/VGETMANT/VSCALEF to record\n");
    return 77;
  }
  const std::vector<SectionRecord> records = record();
  if (checking) return check(argv[2], records);
  const std::string bytes = serialize(records);
  std::ofstream out(argv[1], std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out.good()) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("wrote %s: %zu bytes, %zu sections\n", argv[1], bytes.size(), plan().size());
  return 0;
}
