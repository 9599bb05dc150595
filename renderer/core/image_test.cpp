#include "tessera/image.h"

#include <gtest/gtest.h>
#include <stb/stb_image_write.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>

#include "tessera/error.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

// A fresh folder per test, removed afterwards.
class ImageFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("tessera_image_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  size_t file_count() const {
    size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) n += e.is_regular_file() ? 1 : 0;
    return n;
  }
  fs::path dir_;
};

// The sRGB formula evaluated in double, rounded to nearest: the oracle for encode_srgb8.
int reference_encode(double linear) {
  if (!(linear > 0.0)) return 0;
  if (linear >= 1.0) return 255;
  const double s = linear <= 0.0031308 ? linear * 12.92 : 1.055 * std::pow(linear, 1.0 / 2.4) - 0.055;
  return int(std::floor(s * 255.0 + 0.5));
}

Image test_pattern(int w, int h) {
  Image img(w, h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      img.at(x, y) = pack_rgba8(uint8_t(x * 7 + y), uint8_t(y * 13), uint8_t(x ^ y), uint8_t(255 - x));
    }
  }
  return img;
}

TEST(SrgbTest, KnownValuesOfTheStandardFormula) {
  EXPECT_FLOAT_EQ(srgb_to_linear(0.0f), 0.0f);
  EXPECT_FLOAT_EQ(srgb_to_linear(1.0f), 1.0f);
  EXPECT_NEAR(srgb_to_linear(0.5f), 0.21404114, 1e-7);
  EXPECT_NEAR(srgb_to_linear(0.04045f), 0.04045 / 12.92, 1e-9);  // linear segment
  EXPECT_NEAR(linear_to_srgb(0.5f), 0.73535698, 1e-7);
  EXPECT_NEAR(linear_to_srgb(0.002f), double(0.002f) * 12.92, 1e-9);
  EXPECT_FLOAT_EQ(linear_to_srgb(1.0f), 1.0f);
}

TEST(SrgbTest, TransferFunctionsAreInverses) {
  for (int i = 0; i <= 1000; ++i) {
    const float c = float(i) / 1000.0f;
    EXPECT_NEAR(linear_to_srgb(srgb_to_linear(c)), c, 2e-6) << c;
  }
}

TEST(SrgbTest, DecodeTableMatchesFormulaForEveryCode) {
  for (int i = 0; i < 256; ++i) {
    // The table holds the float nearest the exact value at i / 255 (no float rounding of
    // the input first).
    const double s = i / 255.0;
    const double exact = s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    EXPECT_EQ(decode_srgb8(uint8_t(i)), float(exact)) << i;
    EXPECT_NEAR(decode_srgb8(uint8_t(i)), srgb_to_linear(float(i) / 255.0f), 1e-7) << i;
  }
  EXPECT_EQ(decode_srgb8(0), 0.0f);
  EXPECT_EQ(decode_srgb8(255), 1.0f);
}

// Each bucket holds the code of i / 4096 found by a full search from code 0 (the table is built
// incrementally; this is the search it replaced).
TEST(SrgbTest, BucketTableMatchesAFullSearch) {
  const detail::SrgbTables& t = detail::srgb_tables;
  for (int i = 0; i <= 4096; ++i) {
    const double linear = double(i) / 4096.0;
    int code = 0;
    while (code < 255 && linear >= t.step[code + 1]) ++code;
    ASSERT_EQ(int(t.bucket[i]), code) << i;
  }
  EXPECT_EQ(t.bucket[0], 0);
  EXPECT_EQ(t.bucket[4096], 255);
}

TEST(SrgbTest, EncodeOfDecodeIsIdentityForEveryCode) {
  for (int i = 0; i < 256; ++i) EXPECT_EQ(encode_srgb8(decode_srgb8(uint8_t(i))), i) << i;
}

TEST(SrgbTest, EncodeClampsAndMapsNanToZero) {
  EXPECT_EQ(encode_srgb8(-1.0f), 0);
  EXPECT_EQ(encode_srgb8(-0.0f), 0);
  EXPECT_EQ(encode_srgb8(2.0f), 255);
  EXPECT_EQ(encode_srgb8(std::numeric_limits<float>::infinity()), 255);
  EXPECT_EQ(encode_srgb8(-std::numeric_limits<float>::infinity()), 0);
  EXPECT_EQ(encode_srgb8(std::numeric_limits<float>::quiet_NaN()), 0);
  EXPECT_EQ(encode_srgb8(0.5f), 188);  // 0.73536 * 255 = 187.52
}

TEST(SrgbTest, EncodeRoundsToNearestLikeTheExactFormula) {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  for (int i = 0; i < 200000; ++i) {
    const float v = dist(rng);
    ASSERT_EQ(encode_srgb8(v), reference_encode(v)) << v;
  }
  // Values straddling each step, where a sloppy table would round the wrong way.
  for (int k = 1; k < 256; ++k) {
    const double s = (k - 0.5) / 255.0;
    const double t = s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    const float below = std::nextafter(float(t), 0.0f);
    const float above = std::nextafter(float(t), 1.0f);
    EXPECT_EQ(encode_srgb8(below), reference_encode(below)) << k;
    EXPECT_EQ(encode_srgb8(above), reference_encode(above)) << k;
  }
}

TEST(PsnrTest, IdenticalImagesGiveInfinity) {
  const Image a = test_pattern(9, 5);
  EXPECT_TRUE(std::isinf(psnr_rgb(a, a)));
  EXPECT_GT(psnr_rgb(a, a), 0.0);
}

TEST(PsnrTest, KnownErrorGivesKnownPsnr) {
  Image a(4, 4, pack_rgba8(100, 100, 100));
  Image b = a;
  // One channel of one pixel off by 48: MSE = 48^2 / (16 * 3) = 48.
  b.at(2, 1) = pack_rgba8(148, 100, 100);
  EXPECT_NEAR(psnr_rgb(a, b), 10.0 * std::log10(255.0 * 255.0 / 48.0), 1e-12);
  EXPECT_DOUBLE_EQ(psnr_rgb(a, b), psnr_rgb(b, a));
}

TEST(PsnrTest, AlphaIsIgnored) {
  const Image a(3, 3, pack_rgba8(10, 20, 30, 255));
  const Image b(3, 3, pack_rgba8(10, 20, 30, 0));
  EXPECT_TRUE(std::isinf(psnr_rgb(a, b)));
}

TEST(PsnrTest, SizeMismatchThrows) {
  EXPECT_THROW(psnr_rgb(Image(4, 4), Image(4, 5)), Error);
  EXPECT_THROW(psnr_rgb(Image(4, 4), Image(2, 8)), Error);
}

TEST_F(ImageFileTest, PngRoundTripIsExactAndCreatesParentFolders) {
  const Image img = test_pattern(37, 23);
  const fs::path path = dir_ / "a" / "b" / "pattern.png";
  write_png(path, img);
  ASSERT_TRUE(fs::exists(path));
  const Image back = read_image(path);
  ASSERT_EQ(back.width, 37);
  ASSERT_EQ(back.height, 23);
  EXPECT_EQ(back.pixels, img.pixels);
  EXPECT_EQ(file_count(), 1u) << "no temporary file may be left behind";
}

TEST_F(ImageFileTest, OverwriteReplacesTheFile) {
  const fs::path path = dir_ / "out.png";
  write_png(path, Image(2, 2, pack_rgba8(1, 2, 3)));
  write_png(path, Image(3, 1, pack_rgba8(4, 5, 6)));
  const Image back = read_image(path);
  EXPECT_EQ(back.width, 3);
  EXPECT_EQ(back.at(0, 0), pack_rgba8(4, 5, 6));
  EXPECT_EQ(file_count(), 1u);
}

TEST_F(ImageFileTest, FailedWriteKeepsTheEarlierFileAndNamesThePath) {
  const fs::path path = dir_ / "keep.png";
  write_png(path, Image(2, 2, pack_rgba8(9, 9, 9)));
  Image broken(4, 4);
  broken.pixels.resize(3);  // inconsistent image
  try {
    write_png(path, broken);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_image(path).at(1, 1), pack_rgba8(9, 9, 9));
  EXPECT_EQ(file_count(), 1u);
}

TEST_F(ImageFileTest, WriteIntoAFolderThatIsAFileThrowsNamingThePath) {
  std::ofstream(dir_ / "plain_file") << "x";
  const fs::path path = dir_ / "plain_file" / "out.png";
  try {
    write_png(path, Image(2, 2));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

TEST_F(ImageFileTest, WriteOverAFolderThrowsAndLeavesNoTemporary) {
  const fs::path path = dir_ / "occupied.png";
  fs::create_directories(path / "inside");
  EXPECT_THROW(write_png(path, Image(2, 2)), Error);
  EXPECT_TRUE(fs::is_directory(path));
  EXPECT_EQ(file_count(), 0u);
}

TEST_F(ImageFileTest, ReadMissingFileNamesThePath) {
  const fs::path path = dir_ / "missing.png";
  try {
    read_image(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

TEST_F(ImageFileTest, ReadGarbageNamesThePathAndTheReason) {
  const fs::path path = dir_ / "garbage.png";
  std::ofstream(path, std::ios::binary) << "this is not an image at all";
  try {
    read_image(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("cannot read image: "), std::string::npos) << msg;
    EXPECT_GT(msg.size(), msg.find("cannot read image: ") + 19) << "stb's reason is missing";
  }
}

TEST_F(ImageFileTest, ReadRefusesAbsurdDimensionsBeforeDecoding) {
  // A PNG signature and an IHDR chunk claiming 20000x16 RGB, and nothing else (stb itself
  // refuses images over 1 GiB, so the claim stays under that to reach Tessera's limit).
  const fs::path path = dir_ / "huge.png";
  const unsigned char header[] = {0x89, 'P',  'N',  'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0,
                                  0,    0x4e, 0x20, 0,   0,    0,    16,   8,    2, 0, 0, 0,  0,   0,   0,   0};
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(header), sizeof(header));
  try {
    read_image(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("20000x16 exceeds 16384"), std::string::npos) << msg;
  }
}

TEST_F(ImageFileTest, ReadExpandsGreyscaleToOpaqueRgba) {
  const fs::path path = dir_ / "grey.png";
  const unsigned char grey[2] = {0, 200};
  ASSERT_NE(stbi_write_png(path.c_str(), 2, 1, 1, grey, 2), 0);
  const Image back = read_image(path);
  ASSERT_EQ(back.width, 2);
  EXPECT_EQ(back.at(0, 0), pack_rgba8(0, 0, 0, 255));
  EXPECT_EQ(back.at(1, 0), pack_rgba8(200, 200, 200, 255));
}

}  // namespace
}  // namespace tessera
