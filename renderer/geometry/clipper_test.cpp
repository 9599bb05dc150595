#include "geometry/clipper.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

ClipVertex vtx(float x, float y, float z, float w, float attr = 0.0f) {
  ClipVertex v{};
  v.clip = {x, y, z, w};
  v.varyings[0] = attr;
  return v;
}

TEST(Clipper, OutcodesNearFarAndGuardBand) {
  const GuardBand gb{2.0f, 3.0f};
  EXPECT_EQ(clip_outcode({0, 0, 0.5f, 1}, gb), 0u);
  EXPECT_EQ(clip_outcode({0, 0, -0.1f, 1}, gb), uint32_t(kClipNear));
  EXPECT_EQ(clip_outcode({0, 0, 1.1f, 1}, gb), uint32_t(kClipFar));
  EXPECT_EQ(clip_outcode({1.5f, 0, 0.5f, 1}, gb), 0u);  // outside the frustum, inside the guard band
  EXPECT_EQ(frustum_outcode({1.5f, 0, 0.5f, 1}), uint32_t(kClipRight));
  EXPECT_EQ(clip_outcode({-2.5f, 3.5f, 0.5f, 1}, gb), uint32_t(kClipLeft | kClipBottom));
  // NaN is outside every plane: never silently accepted.
  EXPECT_EQ(clip_outcode({NAN, 0, 0.5f, 1}, gb) & (kClipLeft | kClipRight), uint32_t(kClipLeft | kClipRight));
}

TEST(Clipper, NearPlaneCutsTriangleIntoQuad) {
  // One vertex behind the near plane (z < 0): the result is a quadrilateral with z >= 0.
  ClipVertex out[kMaxClipVertices];
  const int n = clip_triangle(vtx(-1, 0, 0.5f, 1, 0.0f), vtx(1, 0, 0.5f, 1, 1.0f), vtx(0, 1, -0.5f, 1, 2.0f), kClipNear,
                              GuardBand{}, 1, out);
  ASSERT_EQ(n, 4);
  for (int i = 0; i < n; ++i) EXPECT_GE(out[i].clip.z, 0.0f);
  // The new vertices lie halfway along the cut edges, attributes interpolated linearly.
  int on_plane = 0;
  for (int i = 0; i < n; ++i) {
    if (out[i].clip.z == 0.0f) {
      ++on_plane;
      EXPECT_FLOAT_EQ(out[i].clip.y, 0.5f);
      EXPECT_TRUE(out[i].varyings[0] == 1.0f || out[i].varyings[0] == 1.5f) << out[i].varyings[0];
    }
  }
  EXPECT_EQ(on_plane, 2);
}

TEST(Clipper, WhollyOutsideGivesNothing) {
  ClipVertex out[kMaxClipVertices];
  EXPECT_EQ(clip_triangle(vtx(0, 0, -1, 1), vtx(1, 0, -1, 1), vtx(0, 1, -2, 1), kClipNear, GuardBand{}, 0, out), 0);
}

TEST(Clipper, SharedEdgeGivesIdenticalVertex) {
  // Two triangles share the edge a-b which crosses the near plane; they traverse it in
  // opposite directions but must produce bit-identical intersection points.
  const ClipVertex a = vtx(0.3f, -0.7f, -0.37f, 1.3f, 0.1f);
  const ClipVertex b = vtx(-0.2f, 0.9f, 0.81f, 2.7f, 0.9f);
  const ClipVertex c = vtx(0.9f, 0.4f, 0.5f, 1.0f);
  const ClipVertex d = vtx(-0.9f, -0.4f, 0.5f, 1.0f);
  ClipVertex p[kMaxClipVertices], q[kMaxClipVertices];
  const int n = clip_triangle(a, b, c, kClipNear, GuardBand{}, 1, p);
  const int m = clip_triangle(b, a, d, kClipNear, GuardBand{}, 1, q);
  ASSERT_GE(n, 3);
  ASSERT_GE(m, 3);
  auto find_on_ab = [](const ClipVertex* poly, int count) {
    for (int i = 0; i < count; ++i)
      if (poly[i].clip.z == 0.0f && poly[i].varyings[0] > 0.1f) return poly[i];  // on a-b, not a-c/a-d
    return ClipVertex{};
  };
  const ClipVertex x = find_on_ab(p, n);
  const ClipVertex y = find_on_ab(q, m);
  EXPECT_EQ(x.clip.x, y.clip.x);
  EXPECT_EQ(x.clip.y, y.clip.y);
  EXPECT_EQ(x.clip.w, y.clip.w);
  EXPECT_EQ(x.varyings[0], y.varyings[0]);
}

TEST(Clipper, GuardBandClipKeepsInside) {
  const GuardBand gb{2.0f, 2.0f};
  ClipVertex out[kMaxClipVertices];
  const int n = clip_triangle(vtx(-100, -1, 0.5f, 1), vtx(100, -1, 0.5f, 1), vtx(0, 100, 0.5f, 1),
                              kClipLeft | kClipRight | kClipBottom, gb, 0, out);
  ASSERT_GE(n, 3);
  for (int i = 0; i < n; ++i) {
    EXPECT_LE(std::abs(out[i].clip.x), 2.0f * 1.0001f);
    EXPECT_LE(out[i].clip.y, 2.0f * 1.0001f);
  }
}

}  // namespace
}  // namespace tessera
