#include "units.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "color/color_counters.h"
#include "color/color_tile.h"
#include "geometry/gpp_array.h"
#include "tessera/color_state.h"
#include "tessera/image.h"

namespace tessera::layer {
namespace {

uint64_t points_of(const GppPatch& p) {
  return tess_counts(p.domain, resolve_tess_factors(p.domain, p.spacing, p.factors)).points;
}

// A patch with exactly `points` domain points when one exists (isolines: lines x (segments+1);
// quads: the four outer edges plus the (a-1)(b-1) interior points), checked against the
// tessellator's own closed forms. 0 points is a culled patch. `exact` is false when no patch
// has that count (1 point; more than a quad at level 64 has): the nearest is used.
GppPatch patch_with_points(uint64_t points, bool& exact) {
  static std::mutex mutex;
  static std::map<uint64_t, std::pair<GppPatch, bool>> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(points); it != cache.end()) {
    exact = it->second.second;
    return it->second.first;
  }
  GppPatch p;
  p.spacing = TessSpacing::kEqual;
  bool found = false;
  if (points == 0) {
    p.domain = TessDomain::kQuad;
    p.factors.outer = {0, 1, 1, 1};  // culled
    found = true;
  }
  for (uint64_t lines = 1; !found && lines <= kMaxTessLevel; ++lines) {
    if (points % lines != 0) continue;
    const uint64_t segments = points / lines - 1;
    if (segments < 1 || segments > kMaxTessLevel) continue;
    p.domain = TessDomain::kIsoline;
    p.factors.outer = {float(lines), float(segments), 0, 0};
    found = points_of(p) == points;
  }
  for (uint64_t a = 2; !found && a <= kMaxTessLevel; ++a) {
    for (uint64_t b = a; !found && b <= kMaxTessLevel; ++b) {
      const uint64_t interior = (a - 1) * (b - 1);
      if (interior + 4 > points || points - interior > 4 * kMaxTessLevel) continue;
      const uint64_t edges = points - interior;
      p.domain = TessDomain::kQuad;
      for (int e = 0; e < 4; ++e) p.factors.outer[size_t(e)] = float(edges / 4 + (uint64_t(e) < edges % 4 ? 1 : 0));
      p.factors.inner = {float(a), float(b)};
      found = points_of(p) == points;
    }
  }
  if (!found) {
    p = GppPatch{};
    p.spacing = TessSpacing::kEqual;
    if (points < 4) {  // 1 point: the smallest isoline patch (2 points)
      p.domain = TessDomain::kIsoline;
      p.factors.outer = {1, 1, 0, 0};
    } else {  // beyond what one patch can produce: the largest quad
      p.domain = TessDomain::kQuad;
      p.factors.outer = {float(kMaxTessLevel), float(kMaxTessLevel), float(kMaxTessLevel), float(kMaxTessLevel)};
      p.factors.inner = {float(kMaxTessLevel), float(kMaxTessLevel)};
    }
  }
  cache.emplace(points, std::make_pair(p, found));
  exact = found;
  return p;
}

}  // namespace

GppFrameModel model_gpp_frame(const std::vector<TessSegment>& segments, int gpp_count) {
  GppFrameModel m;
  std::vector<GppPatch> stream;
  for (const TessSegment& s : segments) {
    if (s.patches == 0) continue;
    const uint64_t base = s.invocations / s.patches, extra = s.invocations % s.patches;
    if (extra != 0) m.estimate_exact = false;
    for (uint64_t i = 0; i < s.patches; ++i) {
      bool exact = true;
      GppPatch p = patch_with_points(base + (i < extra ? 1 : 0), exact);
      m.estimate_exact &= exact;
      p.id = uint32_t(stream.size());
      m.domain_points += points_of(p);
      stream.push_back(p);
    }
  }
  if (stream.empty()) return m;
  m.valid = true;
  m.count = gpp_count;
  m.patches = stream.size();
  GppArrayConfig config;
  config.gpp_count = gpp_count;
  config.build_primitives = false;  // counts only: the cost model needs nothing else
  const GppRunResult onchip = run_gpp_array(GppDesign::kOnChip, stream, config);
  const GppRunResult noredist = run_gpp_array(GppDesign::kNoRedistribution, stream, config);
  config.gpp_count = 1;
  const GppRunResult single = run_gpp_array(GppDesign::kOnChip, stream, config);
  m.busy_cycles = onchip.timing.busy_cycles;
  double sum = 0;
  for (double b : m.busy_cycles) {
    m.max_busy_cycles = std::max(m.max_busy_cycles, b);
    sum += b;
  }
  m.mean_busy_cycles = sum / double(gpp_count);
  m.balance = onchip.timing.load_balance;
  m.makespan_cycles = onchip.timing.makespan_cycles;
  if (m.makespan_cycles > 0) {
    m.speedup_vs_1gpp = single.timing.makespan_cycles / m.makespan_cycles;
    m.speedup_vs_noredist = noredist.timing.makespan_cycles / m.makespan_cycles;
  }
  return m;
}

void MsaaFrameStats::add(const MsaaFrameStats& o) {
  valid |= o.valid;
  images += o.images;
  samples += o.samples;
  tiles += o.tiles;
  for (int i = 0; i < kColorStateCodes; ++i) tiles_by_state[i] += o.tiles_by_state[i];
  stored_bytes += o.stored_bytes;
  uncompressed_bytes += o.uncompressed_bytes;
  planes_only_bytes += o.planes_only_bytes;
  skipped += o.skipped;
  skipped_by_reason.merge(o.skipped_by_reason);
}

MsaaFrameStats analyse_msaa_samples(const uint32_t* samples, uint32_t width, uint32_t height, uint32_t n,
                                    uint32_t clear, std::vector<uint8_t>* tile_states) {
  MsaaFrameStats m;
  m.valid = true;
  m.images = 1;
  m.samples = uint64_t(width) * height * n;
  color::ColorCounters cc;
  if (tile_states) tile_states->clear();
  // The colour unit's gathering (as its frame path, run_color_codecs): 8x4 blocks in row-major
  // order, completed with the clear colour past the edges.
  for (uint32_t by = 0; by < height; by += color::kTileHeight) {
    for (uint32_t bx = 0; bx < width; bx += color::kTileWidth) {
      const color::ColorTile t = color::gather_tile(samples, int(width), int(height), int(n), int(bx), int(by), clear);
      const color::StoredTile stored = color::store_tile(t, clear);
      cc.add(stored);
      if (tile_states) tile_states->push_back(uint8_t(stored.state));
    }
  }
  m.tiles = 0;
  for (int i = 0; i < kColorStateCodes; ++i) {
    m.tiles_by_state[i] = cc.tiles_by_state[size_t(i)];
    m.tiles += cc.tiles_by_state[size_t(i)];
  }
  m.stored_bytes = cc.stored_bytes();
  m.uncompressed_bytes = cc.baseline_uncompressed_bits / 8;
  m.planes_only_bytes = cc.baseline_planes_only_bits / 8;
  return m;
}

bool write_state_image(const std::string& path, const std::vector<uint8_t>& tile_states, uint32_t width,
                       uint32_t height) {
  const uint32_t tiles_x = (width + color::kTileWidth - 1) / color::kTileWidth;
  Image img(static_cast<int>(width), static_cast<int>(height));
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) {
      const size_t tile = size_t(y / color::kTileHeight) * tiles_x + x / color::kTileWidth;
      img.at(int(x), int(y)) = tile < tile_states.size() ? color_tile_state_swatch(tile_states[tile]) : 0;
    }
  try {
    write_png(path, img);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

}  // namespace tessera::layer
