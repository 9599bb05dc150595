// The tessellator's factor handling on arbitrary factor bits (NaN, infinities, negatives,
// denormals, huge values) for every domain and spacing: the resolved factors are in range,
// tessellate() builds exactly what tess_counts() predicts, every index names a point, every
// point lies in the domain, and each edge's parameters run 0..1, mirror exactly and fold back
// no further than the reference pattern's fixed-point rounding does.
#include <cmath>
#include <cstdint>

#include "fuzz_support.h"
#include "tessera/tessellator.h"

namespace {

using namespace tessera;
using tessera::fuzz::finding;

// The D3D11 reference pattern (which lavapipe reproduces and the tessellator matches bit for bit)
// is not strictly monotonic: at fractional_even levels just above an integer (e.g. 6.00003, a
// 16.16 fraction of 1) the point new at the ceil level sits at its floor-level place times the
// rounded-up reciprocal (3 * 0x2aab = 0x8001 > 1/2), a few 2^-16 past its neighbour. Over every
// 16.16 level the fold is at most 7 * 2^-16; anything beyond 8 is a finding.
constexpr float kReferenceFold = 8.0f / 65536.0f;

void check_edge(float level, int segments) {
  if (segments < 1 || segments > kMaxTessLevel) finding("edge segments outside 1..64");
  if (!(level >= 1.0f && level <= float(kMaxTessLevel))) finding("clamped level outside 1..64 (or NaN)");
  const std::vector<float> t = tess_edge_parameters(level, segments);
  if (t.size() != size_t(segments) + 1) finding("edge parameter count is not segments + 1");
  if (t.front() != 0.0f || t.back() != 1.0f) finding("edge parameters do not run from 0 to 1");
  for (size_t i = 0; i < t.size(); ++i) {
    if (i > 0 && !(t[i] >= t[i - 1] - kReferenceFold)) finding("edge parameters fold back further than the reference");
    if (t[t.size() - 1 - i] != 1.0f - t[i]) finding("edge parameters not mirror-symmetric");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tessera::fuzz::ByteReader in(data, size);
  const uint8_t mode = in.get<uint8_t>();
  const auto domain = TessDomain(mode % 3);
  const auto spacing = TessSpacing((mode / 3) % 3);
  TessFactors f;
  // Small integers and halves are where the rounding rules turn; raw bits find the rest.
  const bool raw = (mode & 0x80) != 0;
  for (float* v : {&f.outer[0], &f.outer[1], &f.outer[2], &f.outer[3], &f.inner[0], &f.inner[1]}) {
    *v = raw ? in.get<float>() : float(int(in.get<int8_t>())) * 0.5f;
  }
  tessera::fuzz::expect_result_or_error([&] {
    const ResolvedTessFactors r = resolve_tess_factors(domain, spacing, f);
    const TessellatedPatch patch = tessellate(domain, spacing, f);
    if (patch.culled != (r.culled != 0)) finding("tessellate and resolve_tess_factors disagree on culling");
    const TessCounts counts = tess_counts(domain, r);
    if (patch.points.size() != counts.points) finding("point count differs from tess_counts");
    if (patch.primitive_count() != counts.primitives) finding("primitive count differs from tess_counts");
    if (r.culled) {
      if (!patch.points.empty() || !patch.indices.empty()) finding("culled patch has geometry");
      return;
    }
    const int edges = domain == TessDomain::kTriangle ? 3 : domain == TessDomain::kQuad ? 4 : 0;
    for (int e = 0; e < edges; ++e) check_edge(r.outer_level[size_t(e)], r.outer_segments[size_t(e)]);
    if (domain == TessDomain::kIsoline) check_edge(r.outer_level[1], r.outer_segments[1]);
    for (uint32_t i : patch.indices) {
      if (i >= patch.points.size()) finding("index past the patch's points");
    }
    for (const glm::vec3& p : patch.points) {
      for (int k = 0; k < 3; ++k) {
        if (!(p[k] >= 0.0f && p[k] <= 1.0f)) finding("domain point outside [0, 1]");
      }
      if (domain == TessDomain::kTriangle && std::fabs(p.x + p.y + p.z - 1.0f) > 1e-5f) {
        finding("triangle domain point is not barycentric");
      }
      if (domain != TessDomain::kTriangle && p.z != 0.0f) finding("quad or isoline point with w != 0");
    }
  });
  return 0;
}
