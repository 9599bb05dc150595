#include "tessera/config.h"

#include <gtest/gtest.h>

#include "tessera/error.h"

namespace tessera {
namespace {

std::string error_of(const std::string& text) {
  try {
    config_from_json_text(text, "cfg.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Config, DefaultsRoundTrip) {
  const Config d;
  const Config c = config_from_json_text(config_to_json_text(d), "roundtrip");
  EXPECT_EQ(c.frame.width, d.frame.width);
  EXPECT_EQ(c.raster.tile_size, 64);
  EXPECT_TRUE(c.raster.cull_backface);
  EXPECT_EQ(config_to_json_text(c), config_to_json_text(d));
}

TEST(Config, PartialOverridesKeepDefaults) {
  const Config c = config_from_json_text(R"({"raster": {"tile_size": 32, "msaa": 4}})", "x");
  EXPECT_EQ(c.raster.tile_size, 32);
  EXPECT_EQ(c.raster.msaa, 4);
  EXPECT_EQ(c.frame.width, 1280);
}

TEST(Config, RejectsBadInputNamingIt) {
  EXPECT_NE(error_of(R"({"raster": {"tile_sise": 32}})").find("cfg.json: raster.tile_sise: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"frame": {"width": 0}})").find("frame.width"), std::string::npos);
  EXPECT_NE(error_of(R"({"frame": {"width": 16385}})").find("out of range"), std::string::npos);
  EXPECT_NE(error_of(R"({"frame": {"height": -5}})").find("frame.height"), std::string::npos);
  EXPECT_NE(error_of(R"({"raster": {"tile_size": 20}})").find("multiple of 8"), std::string::npos);
  EXPECT_NE(error_of(R"({"raster": {"msaa": 3}})").find("raster.msaa = 3 is not one of 1, 2, 4, 8"), std::string::npos);
  EXPECT_NE(error_of(R"({"raster": {"msaa": 16}})").find("raster.msaa"), std::string::npos);
  EXPECT_NE(error_of(R"({"color": {"line_bytes": 32}})").find("color.line_bytes = 32"), std::string::npos);
  EXPECT_NE(error_of(R"({"color": {"cache_bytes": 1000}})").find("color.cache_bytes"), std::string::npos);
  EXPECT_NE(error_of(R"({"color": {"ways": 0}})").find("color.ways"), std::string::npos);
  EXPECT_NE(error_of(R"({"color": {"size": 4096}})").find("color.size: unknown key"), std::string::npos);
  EXPECT_NE(error_of(R"({"tiling": {"atomic_size": 12}})").find("tiling.atomic_size"), std::string::npos);
  EXPECT_NE(error_of(R"({"tiling": {"alpha": 1.5}})").find("tiling.alpha"), std::string::npos);
  EXPECT_NE(error_of(R"({"raster": {"cull_backface": 1}})").find("expected true or false"), std::string::npos);
  EXPECT_NE(error_of(R"({"frame": {"width": 1.5}})").find("expected an integer"), std::string::npos);
  EXPECT_NE(error_of(R"({"frame": )").find("invalid JSON"), std::string::npos);
  EXPECT_NE(error_of(R"([1, 2])").find("expected an object"), std::string::npos);
  EXPECT_THROW(load_config("/nonexistent/cfg.json"), Error);
}

TEST(Config, RangeChecksIntegersBeforeNarrowing) {
  // 2^32 + 1 and -(2^32) + 8 narrow to 1 and 8, both valid: only a check on the 64-bit value
  // refuses them.
  EXPECT_NE(error_of(R"({"frame": {"width": 4294967297}})").find("cfg.json: frame.width: 4294967297 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"raster": {"msaa": -4294967288}})").find("cfg.json: raster.msaa: -4294967288 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"trace": {"seed": 18446744073709551615}})").find("trace.seed"), std::string::npos);
}

TEST(Config, NumberOverflowIsANamedError) {
  // nlohmann reports 1e999 as out_of_range, not parse_error: it must still become a
  // tessera::Error naming the file.
  EXPECT_NE(error_of(R"({"tiling": {"alpha": 1e999}})").find("cfg.json: invalid JSON"), std::string::npos);
}

TEST(Config, RefusesDevicesAsConfigFiles) {
  try {
    load_config("/dev/zero");
    ADD_FAILURE() << "no error for /dev/zero";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/zero: cannot read config file: not a regular file"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tessera
