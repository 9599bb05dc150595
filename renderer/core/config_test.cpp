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

std::string override_error(const std::vector<std::string>& settings) {
  Config c;
  try {
    apply_config_settings(c, settings);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigOverride, SetsEveryKindOfKeyLikeTheFile) {
  Config c;
  apply_config_settings(c, {"tessellation.gpps=8", "tiling.mode=adaptive", "tiling.alpha=0.25",
                            "color.compression=false", "frame.mode=\"rt\"", "rt.budget_mib=64"});
  EXPECT_EQ(c.tessellation.gpps, 8);
  EXPECT_EQ(c.tiling.mode, TilingMode::adaptive);
  EXPECT_EQ(c.tiling.alpha, 0.25);
  EXPECT_FALSE(c.color.compression);
  EXPECT_EQ(c.frame.mode, FrameMode::rt);
  EXPECT_EQ(c.rt.budget_mib, 64.0);
  // The same settings as a file give the same config.
  const Config f = config_from_json_text(
      R"({"tessellation": {"gpps": 8}, "tiling": {"mode": "adaptive", "alpha": 0.25}, "color": {"compression": false},
          "frame": {"mode": "rt"}, "rt": {"budget_mib": 64}})",
      "f");
  EXPECT_EQ(config_to_json_text(c), config_to_json_text(f));
}

TEST(ConfigOverride, PresetFillsTheSectionAndLaterKeysOverride) {
  Config c;
  apply_config_settings(c, {"hardware.eus=7", "hardware.preset=small", "hardware.clock_mhz=900"});
  const HardwareConfig small = hardware_preset(HardwarePreset::small);
  EXPECT_EQ(c.hardware.eus, small.eus);  // the preset replaced the earlier key
  EXPECT_EQ(c.hardware.clock_mhz, 900.0);
  EXPECT_EQ(c.hardware.rt_units, small.rt_units);
}

TEST(ConfigOverride, ErrorsNameTheSettingWithTheFilesMessages) {
  EXPECT_EQ(override_error({"frame.width=abc"}), "--set frame.width=abc: frame.width: expected an integer");
  EXPECT_EQ(override_error({"frame.width=1.5"}), "--set frame.width=1.5: frame.width: expected an integer");
  EXPECT_EQ(override_error({"color.compression=1"}),
            "--set color.compression=1: color.compression: expected true or false");
  EXPECT_EQ(override_error({"tiling.mode=squares"}),
            "--set tiling.mode=squares: config: tiling.mode = \"squares\" is not \"fixed\" or \"adaptive\"");
  EXPECT_EQ(override_error({"frame.widht=5"}), "--set frame.widht=5: frame.widht: unknown key");
  EXPECT_NE(override_error({"frme.width=5"}).find("frme.width: unknown key"), std::string::npos);
  EXPECT_NE(override_error({"gpps=5"}).find("gpps: unknown key"), std::string::npos);
  EXPECT_EQ(override_error({"frame.width"}), "--set frame.width: expected KEY=VALUE, e.g. tessellation.gpps=8");
  EXPECT_EQ(override_error({"tiling.alpha=nan"}), "--set tiling.alpha=nan: tiling.alpha: expected a number");
  EXPECT_EQ(override_error({"frame.threads=4294967297"}),
            "--set frame.threads=4294967297: frame.threads: 4294967297 is out of range [-2147483648, 2147483647]");
  // Ranges are validate_config's, with its message.
  EXPECT_EQ(override_error({"tessellation.gpps=17"}),
            "--set tessellation.gpps=17: config: tessellation.gpps = 17 is out of range [1, 16]");
  // Keys that depend on each other are checked together, after all settings.
  EXPECT_EQ(override_error({"color.line_bytes=128", "color.ways=2", "color.cache_bytes=256"}), "");
  EXPECT_EQ(override_error({}), "");
}

TEST(ConfigOverride, EveryKeyCanBeSetToItsDefault) {
  const Config d;
  const auto j = config_to_json_text(d);
  Config c;
  for (const std::string& key : config_keys()) {
    const size_t dot = key.find('.');
    const std::string needle = "\"" + key.substr(dot + 1) + "\": ";
    // The default's text as the file writes it, found in its section.
    const size_t sec = j.find("\"" + key.substr(0, dot) + "\": {");
    ASSERT_NE(sec, std::string::npos) << key;
    const size_t at = j.find(needle, sec);
    ASSERT_NE(at, std::string::npos) << key;
    const size_t begin = at + needle.size();
    const std::string value = j.substr(begin, j.find_first_of(",\n", begin) - begin);
    EXPECT_NO_THROW(apply_config_override(c, key, value)) << key << "=" << value;
  }
  EXPECT_EQ(config_to_json_text(c), j);
}

}  // namespace
}  // namespace tessera
