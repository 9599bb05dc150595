// The config reader (docs/config.md) on arbitrary text: a Config that passes validate_config,
// or a tessera::Error. An accepted config must survive its own JSON round trip unchanged.
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "tessera/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tessera::fuzz::expect_result_or_error([&] {
    const tessera::Config config = tessera::config_from_json_text(text, "fuzz.json");
    tessera::validate_config(config);
    const std::string written = tessera::config_to_json_text(config);
    const tessera::Config again = tessera::config_from_json_text(written, "round trip");
    if (tessera::config_to_json_text(again) != written) tessera::fuzz::finding("config JSON round trip differs");
  });
  return 0;
}
