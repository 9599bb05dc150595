#include <gtest/gtest.h>

#include <set>

#include "scene/scene_test_support.h"
#include "tessera/procedural.h"

namespace tessera {
namespace {

using scene_testing::expect_error;

TEST(ProceduralTexture, CheckerAlternatesEncodedColours) {
  CheckerParams p;
  p.size = 8;
  p.cells = 2;
  p.color_a = glm::vec3(1.0f, 0.0f, 0.0f);
  p.color_b = glm::vec3(0.0f, 0.0f, 0.5f);
  const Image img = make_checker_image(p);
  ASSERT_EQ(img.width, 8);
  const Rgba8 a = pack_rgba8(255, 0, 0), b = pack_rgba8(0, 0, 188);
  EXPECT_EQ(img.at(0, 0), a);
  EXPECT_EQ(img.at(3, 3), a);
  EXPECT_EQ(img.at(4, 0), b);
  EXPECT_EQ(img.at(0, 4), b);
  EXPECT_EQ(img.at(7, 7), a);
}

TEST(ProceduralTexture, BricksHaveMortarLinesAndVaryingBricks) {
  BricksParams p;
  p.size = 64;
  p.rows = 4;
  p.columns = 2;
  p.mortar = 0.125f;  // 2 texels of a 16-texel course: 1 on each edge
  p.variation = 0.3f;
  const Image img = make_bricks_image(p);
  const Rgba8 mortar =
      pack_rgba8(encode_srgb8(p.mortar_color.r), encode_srgb8(p.mortar_color.g), encode_srgb8(p.mortar_color.b));
  for (int x = 0; x < 64; ++x) {
    EXPECT_EQ(img.at(x, 0), mortar);   // top edge of course 0
    EXPECT_EQ(img.at(x, 15), mortar);  // bottom edge of course 0
  }
  EXPECT_NE(img.at(8, 8), mortar);
  std::set<Rgba8> brick_colours;
  for (int row = 0; row < 4; ++row) {
    for (int x = 4; x < 64; x += 8) {
      const Rgba8 c = img.at(x, row * 16 + 8);
      if (c != mortar) brick_colours.insert(c);
    }
  }
  EXPECT_GE(brick_colours.size(), 3u);
}

TEST(ProceduralTexture, NoiseTilesAndStaysBetweenItsColours) {
  NoiseTextureParams p;
  p.size = 64;
  p.frequency = 4;
  p.color_a = glm::vec3(0.0f);
  p.color_b = glm::vec3(1.0f);
  const Image img = make_noise_image(p);
  std::set<int> values;
  int seam = 0, inner = 0;
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      const Rgba8 c = img.at(x, y);
      EXPECT_EQ(channel(c, 0), channel(c, 1));
      values.insert(channel(c, 0));
      // The jump across the wrap-around seam is no larger than between inner neighbours.
      const int right = channel(img.at((x + 1) % 64, y), 0);
      const int d = std::abs(int(channel(c, 0)) - right);
      if (x == 63)
        seam = std::max(seam, d);
      else
        inner = std::max(inner, d);
    }
  }
  EXPECT_GT(values.size(), 50u);
  EXPECT_LE(seam, inner);
}

TEST(ProceduralTexture, GeneratorsAreDeterministic) {
  NoiseTextureParams n;
  n.size = 32;
  EXPECT_EQ(make_noise_image(n).pixels, make_noise_image(n).pixels);
  BricksParams b;
  b.size = 32;
  EXPECT_EQ(make_bricks_image(b).pixels, make_bricks_image(b).pixels);
  n.seed = 5;
  EXPECT_NE(make_noise_image(n).pixels, make_noise_image(NoiseTextureParams{32}).pixels);
}

TEST(ProceduralTexture, RejectsBadParameters) {
  CheckerParams c;
  c.size = kMaxTextureSize + 1;
  expect_error([&] { make_checker_image(c); }, {"checker", "size"});
  c = CheckerParams{};
  c.color_a = glm::vec3(1.5f, 0.0f, 0.0f);
  expect_error([&] { make_checker_image(c); }, {"checker", "color_a"});
  BricksParams b;
  b.mortar = 0.6f;
  expect_error([&] { make_bricks_image(b); }, {"bricks", "mortar"});
  NoiseTextureParams n;
  n.octaves = 0;
  expect_error([&] { make_noise_image(n); }, {"noise", "octaves"});
}

}  // namespace
}  // namespace tessera
