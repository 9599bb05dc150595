// Quad rows in Highway vectors, compiled per target and dispatched at run time as the EU's lane
// batches are (eu_lanes.cpp): AVX-512 holds a row in one vector, AVX2 in two, NEON in four.
// The float operations are the scalar path's, one per lane, in the same order and without
// contraction (the build passes -ffp-contract=off; Highway's Mul/Add/Div are single IEEE
// operations), so each lane's result is bit for bit the scalar one.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "raster/raster_lanes.cpp"

#include "raster/raster_lanes.h"

#include <cmath>
#include <cstring>

#include "tessera/image.h"

#include "core/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::raster_lanes {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;

// The lanes of a mask as bits, lane 0 lowest.
inline uint32_t mask_bits(hn::Mask<DF> m) {
  uint8_t bytes[8] = {};
  hn::StoreMaskBits(DF(), m, bytes);
  return uint32_t(bytes[0]) | uint32_t(bytes[1]) << 8;
}

// The float(edge + bias) inputs of the barycentric weights of lanes i.. (one float vector) and
// the lanes where an edge value is negative, from the int32 offsets: each lane's sum wraps
// modulo 2^32 to the exact value.
struct NarrowEdges {
  HWY_INLINE void operator()(const TriangleLanes& t, const int64_t edge[3], size_t i, bool full, hn::Vec<DF> f[3],
                             uint32_t& outside) const {
    const DF df;
    const DI di;
    const auto v0 = hn::Add(hn::Set(di, int32_t(edge[0])), hn::Load(di, t.edge_offset[0] + i));
    const auto v1 = hn::Add(hn::Set(di, int32_t(edge[1])), hn::Load(di, t.edge_offset[1] + i));
    const auto v2 = hn::Add(hn::Set(di, int32_t(edge[2])), hn::Load(di, t.edge_offset[2] + i));
    // A lane is covered when no edge value is negative: the sign bit of their OR.
    if (!full) outside |= mask_bits(hn::RebindMask(df, hn::Lt(hn::Or(hn::Or(v0, v1), v2), hn::Zero(di)))) << i;
    f[0] = hn::ConvertTo(df, hn::Add(v0, hn::Set(di, t.bias[0])));
    f[1] = hn::ConvertTo(df, hn::Add(v1, hn::Set(di, t.bias[1])));
    f[2] = hn::ConvertTo(df, hn::Add(v2, hn::Set(di, t.bias[2])));
  }
};

// The same from the double offsets: every sum is an integer within +-2^53, so exact, and
// rounding it to float is the one rounding float(int64) does.
struct WideEdges {
  HWY_INLINE void operator()(const TriangleLanes& t, const int64_t edge[3], size_t i, bool full, hn::Vec<DF> f[3],
                             uint32_t& outside) const {
    const DF df;
    const hn::ScalableTag<double> dd;  // at most 8 lanes: a mask is one byte
    const hn::Rebind<float, decltype(dd)> dh;
    const size_t nd = hn::Lanes(dd);
    const hn::Vec<decltype(dd)> start[3] = {hn::Set(dd, double(edge[0])), hn::Set(dd, double(edge[1])),
                                            hn::Set(dd, double(edge[2]))};
    alignas(64) float converted[3][kRowLanes];
    for (size_t j = i; j < i + hn::Lanes(df); j += nd) {
      const auto v0 = hn::Add(start[0], hn::Load(dd, t.wide_offset[0] + j));
      const auto v1 = hn::Add(start[1], hn::Load(dd, t.wide_offset[1] + j));
      const auto v2 = hn::Add(start[2], hn::Load(dd, t.wide_offset[2] + j));
      if (!full) {
        const auto zero = hn::Zero(dd);
        uint8_t bits = 0;
        hn::StoreMaskBits(dd, hn::Or(hn::Or(hn::Lt(v0, zero), hn::Lt(v1, zero)), hn::Lt(v2, zero)), &bits);
        outside |= uint32_t(bits) << j;
      }
      hn::Store(hn::DemoteTo(dh, hn::Add(v0, hn::Set(dd, double(t.bias[0])))), dh, converted[0] + j);
      hn::Store(hn::DemoteTo(dh, hn::Add(v1, hn::Set(dd, double(t.bias[1])))), dh, converted[1] + j);
      hn::Store(hn::DemoteTo(dh, hn::Add(v2, hn::Set(dd, double(t.bias[2])))), dh, converted[2] + j);
    }
    for (int k = 0; k < 3; ++k) f[k] = hn::Load(df, converted[k] + i);
  }
};

template <typename Edges>
HWY_INLINE uint32_t cover_row_lanes(const TriangleLanes& t, const int64_t edge[3], uint32_t valid, bool full,
                                    float* depth_row0, float* depth_row1, DepthRowWrite write, uint32_t* passed,
                                    RowLanes& out) {
  const DF df;
  const size_t n = hn::Lanes(df);
  const TriangleSetup& s = *t.setup;
  const auto inv_sum = hn::Set(df, t.inv_sum);
  uint32_t outside = 0, less = 0;
  for (size_t i = 0; i < size_t(kRowLanes); i += n) {
    hn::Vec<DF> f[3];
    Edges()(t, edge, i, full, f, outside);
    // Barycentric weight of vertex k is the edge opposite it, (k+1)%3, without the fill-rule bias.
    const auto b0 = hn::Mul(f[1], inv_sum);
    const auto b1 = hn::Mul(f[2], inv_sum);
    const auto b2 = hn::Mul(f[0], inv_sum);
    const auto z = hn::Add(hn::Add(hn::Mul(b0, hn::Set(df, s.z[0])), hn::Mul(b1, hn::Set(df, s.z[1]))),
                           hn::Mul(b2, hn::Set(df, s.z[2])));
    hn::Store(z, df, out.z + i);
    if (depth_row0) {
      if (n <= 8) {
        const float* stored = i < 8 ? depth_row0 + i : depth_row1 + (i - 8);
        less |= mask_bits(hn::Lt(z, hn::LoadU(df, stored))) << i;
      } else {
        alignas(64) float both[kRowLanes];
        std::memcpy(both, depth_row0, 8 * sizeof(float));
        std::memcpy(both + 8, depth_row1, 8 * sizeof(float));
        less |= mask_bits(hn::Lt(z, hn::Load(df, both + i))) << i;
      }
    }
    // Perspective-correct weights at the pixel centre (with one sample the centre is the sample).
    const auto w0 = hn::Mul(b0, hn::Set(df, s.inv_w[0]));
    const auto w1 = hn::Mul(b1, hn::Set(df, s.inv_w[1]));
    const auto w2 = hn::Mul(b2, hn::Set(df, s.inv_w[2]));
    const auto inv = hn::Div(hn::Set(df, 1.0f), hn::Add(hn::Add(w0, w1), w2));
    hn::Store(hn::Mul(w0, inv), df, out.p[0] + i);
    hn::Store(hn::Mul(w1, inv), df, out.p[1] + i);
    hn::Store(hn::Mul(w2, inv), df, out.p[2] + i);
  }
  const uint32_t covered = full ? valid : valid & ~outside;
  if (depth_row0) {
    const uint32_t pass = covered & less;
    *passed = pass;
    if (write == DepthRowWrite::passed) {
      // The depth write, per pixel row with passed lanes: the stored values with the passed
      // lanes' z blended in (every other lane keeps its own bits).
      const hn::CappedTag<float, 8> dr;
      for (int r = 0; r < 2; ++r) {
        float* row = r ? depth_row1 : depth_row0;
        for (size_t j = 0; j < 8; j += hn::Lanes(dr)) {
          const uint8_t bits = uint8_t(pass >> (8 * r + int(j)));
          if (!bits) continue;
          const auto m = hn::LoadMaskBits(dr, &bits);
          hn::StoreU(hn::IfThenElse(m, hn::Load(dr, out.z + 8 * r + j), hn::LoadU(dr, row + j)), dr, row + j);
        }
      }
    }
  }
  return covered;
}

uint32_t cover_row(const TriangleLanes& t, const int64_t edge[3], uint32_t valid, bool full, float* depth_row0,
                   float* depth_row1, DepthRowWrite write, uint32_t* passed, RowLanes& out) {
  return cover_row_lanes<NarrowEdges>(t, edge, valid, full, depth_row0, depth_row1, write, passed, out);
}

uint32_t cover_row_wide(const TriangleLanes& t, const int64_t edge[3], uint32_t valid, bool full, float* depth_row0,
                        float* depth_row1, DepthRowWrite write, uint32_t* passed, RowLanes& out) {
  return cover_row_lanes<WideEdges>(t, edge, valid, full, depth_row0, depth_row1, write, passed, out);
}

void interpolate_quad(const TriangleLanes& t, const RowLanes& row, int lane, float (*out)[kMaxVaryings]) {
  const hn::CappedTag<float, kMaxVaryings> df;  // a 16-lane vector would run past a pixel's varyings
  const size_t n = hn::Lanes(df);
  const float(*v)[kMaxVaryings] = t.setup->varyings;
  for (int p = 0; p < 4; ++p) {
    const int j = lane + (p >> 1) * 8 + (p & 1);
    const auto p0 = hn::Set(df, row.p[0][j]), p1 = hn::Set(df, row.p[1][j]), p2 = hn::Set(df, row.p[2][j]);
    for (size_t k = 0; k < size_t(kMaxVaryings); k += n) {
      const auto sum = hn::Add(hn::Add(hn::Mul(p0, hn::LoadU(df, v[0] + k)), hn::Mul(p1, hn::LoadU(df, v[1] + k))),
                               hn::Mul(p2, hn::LoadU(df, v[2] + k)));
      hn::StoreU(sum, df, out[p] + k);
    }
  }
}

// encode_srgb8's tables as gather sources: the bucket codes widened to int32, and each step as
// the smallest float at or above it (for a float x, double(x) >= step exactly when x >= that
// float, so the float compare is the double one).
struct EncodeTables {
  int32_t bucket[4097];
  float step[256];
  // Whether no bucket holds more than one step (what encode_srgb8 relies on): a value's code is
  // its bucket's code or the next, so one compare settles every lane.
  bool one_step;
};
const EncodeTables& encode_tables() {
  static const EncodeTables tables = [] {
    EncodeTables t{};
    const detail::SrgbTables& s = detail::srgb_tables;
    for (int i = 0; i <= 4096; ++i) t.bucket[i] = s.bucket[i];
    for (int k = 0; k < 256; ++k) {
      float f = float(s.step[k]);
      if (double(f) < s.step[k]) f = std::nextafter(f, 2.0f);
      t.step[k] = f;
    }
    // Every value of bucket i (below (i + 1) / 4096, exact in float) stays under the second
    // step after the bucket's code.
    t.one_step = true;
    for (int i = 0; i < 4096; ++i) {
      const int second = t.bucket[i] + 2;
      if (second <= 255 && t.step[second] < float(i + 1) / 4096.0f) t.one_step = false;
    }
    return t;
  }();
  return tables;
}

// encode_srgb8 for every lane of x, as int32 codes.
HWY_INLINE hn::Vec<DI> encode_lanes(const EncodeTables& t, hn::Vec<DF> x) {
  const DF df;
  const DI di;
  const auto positive = hn::Gt(x, hn::Zero(df));  // false for NaN
  const auto saturated = hn::Ge(x, hn::Set(df, 1.0f));
  // In-range lanes keep x; the others look up code 0 and are replaced below.
  const auto in_range = hn::AndNot(saturated, positive);
  const auto v = hn::IfThenElseZero(in_range, x);
  auto code = hn::GatherIndex(di, t.bucket, hn::ConvertTo(di, hn::Mul(v, hn::Set(df, 4096.0f))));
  // The scalar search's steps: one when no bucket holds two steps, else until no lane moves.
  const auto top = hn::Set(di, 255);
  for (;;) {
    const auto below_top = hn::Lt(code, top);
    const auto next = hn::Min(hn::Add(code, hn::Set(di, 1)), top);
    const auto up = hn::And(below_top, hn::RebindMask(di, hn::Ge(v, hn::GatherIndex(df, t.step, next))));
    if (t.one_step) {
      code = hn::Add(code, hn::IfThenElseZero(up, hn::Set(di, 1)));
      break;
    }
    if (hn::AllFalse(di, up)) break;
    code = hn::Add(code, hn::IfThenElseZero(up, hn::Set(di, 1)));
  }
  return hn::IfThenElse(hn::RebindMask(di, saturated), top, hn::IfThenElseZero(hn::RebindMask(di, positive), code));
}

void encode_colors(const float* colours, const int32_t* index, int n, uint32_t* out) {
  const DF df;
  const DI di;
  const int lanes = int(hn::Lanes(df));
  static const EncodeTables& t = encode_tables();
  for (int i = 0; i < n; i += lanes) {
    // The colours gathered straight from where the fragment program left them.
    // Lanes past n read colour 0 again (the entries past n may be stale).
    const auto at = hn::IfThenElse(hn::FirstN(di, size_t(n - i)), hn::LoadU(di, index + i), hn::Set(di, index[0]));
    const auto r = hn::GatherIndex(df, colours, at);
    const auto g = hn::GatherIndex(df, colours + 1, at);
    const auto b = hn::GatherIndex(df, colours + 2, at);
    const auto cr = encode_lanes(t, r);
    const auto cg = encode_lanes(t, g);
    const auto cb = encode_lanes(t, b);
    const auto packed =
        hn::Or(hn::Or(cr, hn::ShiftLeft<8>(cg)), hn::Or(hn::ShiftLeft<16>(cb), hn::Set(di, int32_t(0xFF000000u))));
    // Whole vectors: out has room for n rounded up to kEncodeBlock.
    hn::StoreU(hn::BitCast(hn::RebindToUnsigned<DF>(), packed), hn::RebindToUnsigned<DF>(), out + i);
  }
}

void prepare(const TriangleSetup& setup, const EdgeFunction e[3], float inv_sum, bool wide, TriangleLanes& t) {
  const DI di;
  const size_t n = hn::Lanes(di);
  // Column and row of each lane.
  const auto iota = hn::Iota(di, 0);
  for (int i = 0; i < 3; ++i) {
    t.bias[i] = (setup.top_left >> i) & 1u ? 0 : 1;
    if (wide) {
      // Exact int64 offsets (a and b are differences of int32 coordinates), then exact doubles.
      for (int j = 0; j < kRowLanes; ++j) {
        t.wide_offset[i][j] = double(e[i].a * 256 * (j & 7) + e[i].b * 256 * (j >> 3));
      }
      continue;
    }
    // Modulo 2^32: the low 32 bits of a * 256 and b * 256; the lane products wrap likewise.
    const auto da = hn::Set(di, int32_t(uint32_t(uint64_t(e[i].a) << 8)));
    const auto db = hn::Set(di, int32_t(uint32_t(uint64_t(e[i].b) << 8)));
    for (size_t j = 0; j < size_t(kRowLanes); j += n) {
      const auto lane = hn::Add(iota, hn::Set(di, int32_t(j)));
      const auto column = hn::And(lane, hn::Set(di, 7));
      const auto row = hn::ShiftRight<3>(lane);
      hn::Store(hn::Add(hn::Mul(da, column), hn::Mul(db, row)), di, t.edge_offset[i] + j);
    }
  }
  t.inv_sum = inv_sum;
  t.setup = &setup;
}

const Kernels* target_kernels() {
  static const Kernels k{&prepare, &cover_row, &cover_row_wide, &interpolate_quad};
  return &k;
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::raster_lanes
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::raster_lanes {
HWY_EXPORT(prepare);
HWY_EXPORT(cover_row);
HWY_EXPORT(cover_row_wide);
HWY_EXPORT(interpolate_quad);
HWY_EXPORT(encode_colors);
HWY_EXPORT(target_kernels);
const Kernels& kernels() { return *HWY_DYNAMIC_DISPATCH(target_kernels)(); }
void prepare(const TriangleSetup& setup, const EdgeFunction e[3], float inv_sum, bool wide, TriangleLanes& t) {
  HWY_DYNAMIC_DISPATCH(prepare)(setup, e, inv_sum, wide, t);
}
uint32_t cover_row(const TriangleLanes& t, const int64_t edge[3], uint32_t valid, bool full, float* depth_row0,
                   float* depth_row1, DepthRowWrite write, uint32_t* passed, RowLanes& out) {
  return HWY_DYNAMIC_DISPATCH(cover_row)(t, edge, valid, full, depth_row0, depth_row1, write, passed, out);
}
uint32_t cover_row_wide(const TriangleLanes& t, const int64_t edge[3], uint32_t valid, bool full, float* depth_row0,
                        float* depth_row1, DepthRowWrite write, uint32_t* passed, RowLanes& out) {
  return HWY_DYNAMIC_DISPATCH(cover_row_wide)(t, edge, valid, full, depth_row0, depth_row1, write, passed, out);
}
void interpolate_quad(const TriangleLanes& t, const RowLanes& row, int lane, float (*out)[kMaxVaryings]) {
  HWY_DYNAMIC_DISPATCH(interpolate_quad)(t, row, lane, out);
}
void encode_colors(const float* colours, const int32_t* index, int n, uint32_t* out) {
  HWY_DYNAMIC_DISPATCH(encode_colors)(colours, index, n, out);
}
}  // namespace tessera::raster_lanes
#endif  // HWY_ONCE
