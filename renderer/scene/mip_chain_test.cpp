#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "scene/scene_test_support.h"
#include "tessera/procedural.h"
#include "tessera/scene.h"

namespace tessera {
namespace {

using scene_testing::expect_error;

TEST(MipChain, LevelCountAndSizesForSquareAndOddImages) {
  const Texture square = make_texture("square", Image(256, 256));
  ASSERT_EQ(square.levels.size(), 9u);
  for (size_t l = 0; l < 9; ++l) EXPECT_EQ(square.levels[l].width, 256 >> l);

  const Texture odd = make_texture("odd", Image(5, 3));
  ASSERT_EQ(odd.levels.size(), 3u);  // 5x3 -> 2x1 -> 1x1
  EXPECT_EQ(odd.levels[1].width, 2);
  EXPECT_EQ(odd.levels[1].height, 1);
  EXPECT_EQ(odd.levels[2].width, 1);
  EXPECT_EQ(odd.levels[2].height, 1);

  const Texture tall = make_texture("tall", Image(1, 8));
  ASSERT_EQ(tall.levels.size(), 4u);  // 1x8 -> 1x4 -> 1x2 -> 1x1
  for (const Image& level : tall.levels) EXPECT_EQ(level.width, 1);

  const Texture one = make_texture("one", Image(1, 1, pack_rgba8(1, 2, 3, 4)));
  ASSERT_EQ(one.levels.size(), 1u);
  EXPECT_EQ(one.levels[0].at(0, 0), pack_rgba8(1, 2, 3, 4));
  EXPECT_EQ(one.name, "one");
}

TEST(MipChain, AveragesInLinearSpace) {
  // Black and white: the linear mean 0.5 encodes to 188, not the sRGB-code mean 128.
  Image img(2, 2);
  img.at(0, 0) = pack_rgba8(0, 0, 0, 0);
  img.at(1, 0) = pack_rgba8(255, 255, 255, 255);
  img.at(0, 1) = pack_rgba8(255, 255, 255, 255);
  img.at(1, 1) = pack_rgba8(0, 0, 0, 0);
  const Texture tex = make_texture("bw", img);
  ASSERT_EQ(tex.levels.size(), 2u);
  const Rgba8 mean = tex.levels[1].at(0, 0);
  EXPECT_EQ(channel(mean, 0), 188);
  EXPECT_EQ(channel(mean, 1), 188);
  EXPECT_EQ(channel(mean, 2), 188);
  EXPECT_EQ(channel(mean, 3), 128);  // alpha is averaged as is: (0+255+255+0+2)/4
}

TEST(MipChain, EachTexelIsTheLinearMeanOfItsBlock) {
  Image img(6, 4);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 6; ++x) {
      img.at(x, y) = pack_rgba8(uint8_t(x * 40 + y), uint8_t(200 - y * 30), uint8_t((x * y * 17) % 256), 255);
    }
  }
  const Texture tex = make_texture("t", img);
  const Image& l1 = tex.levels[1];
  ASSERT_EQ(l1.width, 3);
  ASSERT_EQ(l1.height, 2);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) {
      for (int c = 0; c < 3; ++c) {
        float sum = 0.0f;
        for (int dy = 0; dy < 2; ++dy) {
          for (int dx = 0; dx < 2; ++dx) sum += decode_srgb8(channel(img.at(2 * x + dx, 2 * y + dy), c));
        }
        EXPECT_EQ(channel(l1.at(x, y), c), encode_srgb8(sum / 4.0f)) << x << "," << y << " c" << c;
      }
    }
  }
}

TEST(MipChain, OddSizesClampTheBlockAndDropTheLastColumn) {
  // 3x1: level 1 is 1x1 built from texels (0,0) and (1,0) (each counted twice: the block's
  // second row clamps to row 0); texel (2,0) is dropped.
  Image img(3, 1);
  img.at(0, 0) = pack_rgba8(255, 0, 0);
  img.at(1, 0) = pack_rgba8(0, 0, 0);
  img.at(2, 0) = pack_rgba8(0, 255, 0);
  const Texture tex = make_texture("odd", img);
  ASSERT_EQ(tex.levels.size(), 2u);
  EXPECT_EQ(tex.levels[1].at(0, 0), pack_rgba8(188, 0, 0));
}

TEST(MipChain, UniformImageStaysUniformAtEveryLevel) {
  const Rgba8 c = pack_rgba8(12, 99, 230, 77);
  const Texture tex = make_texture("flat", Image(13, 7, c));
  for (const Image& level : tex.levels) {
    for (Rgba8 p : level.pixels) EXPECT_EQ(p, c);
  }
}

TEST(MipChain, RejectsEmptyImages) {
  expect_error([] { make_texture("empty", Image()); }, {"empty"});
  Image broken(4, 4);
  broken.pixels.pop_back();
  expect_error([&] { make_texture("broken", broken); }, {"broken"});
}

TEST(MipChain, LoadTextureBuildsTheChainFromAPng) {
  scene_testing::ScratchDir dir;
  const std::filesystem::path path = dir.path() / "stripes.png";
  Image img(8, 4);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 8; ++x) img.at(x, y) = (x & 1) ? pack_rgba8(255, 255, 255) : pack_rgba8(0, 0, 0);
  }
  write_png(path, img);
  const Texture tex = load_texture(path);
  EXPECT_EQ(tex.name, "stripes");
  ASSERT_EQ(tex.levels.size(), 4u);
  EXPECT_EQ(tex.levels[0].pixels, img.pixels);
  EXPECT_EQ(tex.levels[1].at(2, 1), pack_rgba8(188, 188, 188));
  expect_error([&] { load_texture(dir.path() / "missing.png"); }, {"missing.png"});
}

}  // namespace
}  // namespace tessera
