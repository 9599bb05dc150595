// Configuration: one nested struct with documented defaults (docs/config.md), read from and
// written to JSON. Unknown keys and out-of-range values are errors, never silently ignored.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

// Closed choices of the config. Each has its JSON names in Choices<E>::names, in enumerator
// order; the config reader parses them once (choice_name / parse_choice below).
enum class FrameMode : uint8_t {
  raster,  // the raster path
  rt,      // every ray through the ray-tracing unit
  hybrid,  // raster visibility + rays for shadows and reflections
};
enum class TilingMode : uint8_t { fixed, adaptive };
// How the TEBEs share out the patches of a DPM (on-chip) or of the record queue (off-chip).
// Every TEBE runs the same policy on the same messages, so all agree without further messages.
enum class GppPolicy : uint8_t {
  kRoundRobin,   // the spec: handle j to Next-TEBE + j, then next = (next + count) mod N
  kLeastLoaded,  // the spec's "weighted by expected patch cost": each handle to the TEBE with
                 // the least estimated work assigned so far (estimate: patch setup, domain
                 // points from the factors and the patch's extra cycles, at the cost-model
                 // rates), ties broken cyclically
                 // from Next-TEBE; Next-TEBE becomes the follower of the last taker
};
// The GPP array design whose modelled time the timing model charges (the frame's geometry is the
// same for all: each outputs in application order).
enum class TessellationDesign : uint8_t { onchip, noredist, offchip };
enum class LodSelection : uint8_t {
  ray,     // each ray picks at each LOD node (the spec's unit)
  object,  // one level per object per frame from the camera distance (the rasterizer's way)
};
namespace rt {
enum class ResidencyPolicy : uint32_t {
  all_resident = 0,  // every level loaded before the first frame
  demand = 1,        // a non-resident level is loaded when a ray selects it; the ray waits
  lazy = 2,          // a resident level is used instead; the wanted one loads after the frame
};
}  // namespace rt

// GPU classes for the timing model (docs/config.md, hardware).
enum class HardwarePreset : uint8_t { small, medium, large };
// The EU math library the shaders' sqrt/rsqrt/div/pow/exp calls are charged at: the
// branch-free one the frame runs (getexp/getmant/scalef on the FMA datapath), or the branchy
// frexp/ldexp-style baseline.
enum class MathLibrary : uint8_t { branch_free, baseline };

template <typename E>
struct Choices;
template <>
struct Choices<MathLibrary> {
  static constexpr std::array<std::string_view, 2> names{"branch_free", "baseline"};
};
template <>
struct Choices<HardwarePreset> {
  static constexpr std::array<std::string_view, 3> names{"small", "medium", "large"};
};
template <>
struct Choices<FrameMode> {
  static constexpr std::array<std::string_view, 3> names{"raster", "rt", "hybrid"};
};
template <>
struct Choices<TilingMode> {
  static constexpr std::array<std::string_view, 2> names{"fixed", "adaptive"};
};
template <>
struct Choices<GppPolicy> {
  static constexpr std::array<std::string_view, 2> names{"roundrobin", "leastloaded"};
};
template <>
struct Choices<TessellationDesign> {
  static constexpr std::array<std::string_view, 3> names{"onchip", "noredist", "offchip"};
};
template <>
struct Choices<LodSelection> {
  static constexpr std::array<std::string_view, 2> names{"ray", "object"};
};
template <>
struct Choices<rt::ResidencyPolicy> {
  static constexpr std::array<std::string_view, 3> names{"all", "demand", "lazy"};
};

template <typename E>
constexpr std::string_view choice_name(E e) {
  return Choices<E>::names[size_t(e)];
}

// Throws tessera::Error "config: KEY = "VALUE" is not "a", "b" or "c"".
[[noreturn]] void throw_bad_choice(std::string_view key, std::string_view value, const std::string_view* names,
                                   size_t count);

// The enumerator named `value`; `key` (e.g. "frame.mode") names it in the error.
template <typename E>
E parse_choice(std::string_view key, std::string_view value) {
  const auto& names = Choices<E>::names;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == value) return E(i);
  }
  throw_bad_choice(key, value, names.data(), names.size());
}

struct FrameConfig {
  int width = 1280;           // pixels, 1..16384
  int height = 720;           // pixels, 1..16384
  int threads = 0;            // worker threads; 0 = all hardware threads
  bool keep_samples = false;  // keep every colour sample of a multisampled frame (Frame::diagnostics.samples)
  bool diagnostics = false;   // fill Frame::diagnostics: per-tile work, colour states, PICB, supertiles, LOD levels
  FrameMode mode = FrameMode::raster;
};

struct RasterConfig {
  int tile_size = 64;          // fixed binning tile edge in pixels: multiple of 8, 8..1024
  bool cull_backface = true;   // counter-clockwise on screen is front-facing
  float guard_band = 8192.0f;  // pixels beyond the viewport edge before geometric clipping
  bool store_depth = true;     // tiles write their D32F depth back to memory
  int msaa = 1;                // samples per pixel: 1, 2, 4 or 8 (Vulkan standard positions)
};

// The colour unit's cache between the raster back end and memory (MSAA targets).
struct ColorConfig {
  int cache_bytes = 16384;  // capacity: 256 x 64-byte lines by default
  int line_bytes = 64;      // 64 (a 4x4 half of a tile's plane) or 128 (a whole plane)
  int ways = 4;             // associativity, LRU replacement
  bool compression = true;  // false: memory traffic of an uncompressed MSAA target (pixels unchanged)
  bool accounting = true;   // false: the colour unit is not modelled (no cache, no stored forms, no
                            // colour.* counters); the resolve reads the samples. Pixels unchanged.
};

// Tiling (adaptive-tiling spec). The PICB over atomic tiles and the supertiles grown from it
// are generated every frame; `mode` chooses what the raster path renders: fixed tiles of
// raster.tile_size, or the supertiles (binned on atomic tiles, one tile buffer per supertile).
struct TilingConfig {
  TilingMode mode = TilingMode::fixed;
  int atomic_size = 16;            // atomic tile edge in pixels: multiple of 8, 8..256
  int tile_buffer_bytes = 524288;  // on-chip tile buffer a supertile must fit (colour + depth, all samples)
  double alpha = 0.5;              // PIC weight of vertex bytes; beta = 1 - alpha weights shader length
  bool accounting = true;          // the tiler's accounting on every frame: PICB and supertiles
                                   // (fixed mode; adaptive needs them to render), two-pass VS
                                   // and parameter-buffer work (tiling.rendered.*, baselines)
  bool baselines = true;           // also account fixed 16..256 and adaptive tiles on every frame
};

// Tessellation of the scene's patch meshes through the array of geometry processing pipelines
// (tessellation-distribution spec, docs/gpp.md). The frame is tessellated by the on-chip
// redistribution design; the baselines run on the same patch stream for their counters.
struct TessellationConfig {
  int gpps = 4;                                            // N geometry processing pipelines, 1..16
  int batch_size = 32;                                     // patches per input batch, 1..1024
  GppPolicy policy = GppPolicy::kRoundRobin;               // "roundrobin" (the spec) or "leastloaded"
  bool baselines = true;                                   // also run no-redistribution and off-chip on every frame
  TessellationDesign design = TessellationDesign::onchip;  // the design the timing model charges
  bool gpp_map = false;                                    // render the GPP map: tessellated triangles in the colour
                                                           // of the GPP that tessellated them, the rest grey
};

// What rt and hybrid frames trace beyond primary visibility (docs/rt.md, Rendering).
struct TraceConfig {
  bool shadows = true;      // a shadow ray (any hit) to every light a surface faces
  bool reflections = true;  // one bounce of mirror reflection for materials with reflectivity > 0
  int diffuse_samples = 1;  // cosine-weighted diffuse bounce rays per pixel (rt mode), 0..64
  int seed = 1;             // diffuse sampling seed (per pixel: independent of threads)
};

// The ray-tracing unit's LOD nodes and residency manager (docs/rt.md, LOD nodes).
struct RtConfig {
  bool lod = true;  // per-ray LOD selection at LOD nodes; false = finest level everywhere
  LodSelection lod_selection = LodSelection::ray;                     // "ray" or "object" (for comparison)
  rt::ResidencyPolicy residency = rt::ResidencyPolicy::all_resident;  // LOD levels in memory: "all",
                                                                      // "demand" (load on first touch, rays wait) or
                                                                      // "lazy" (substitute, load after the frame)
  double budget_mib = 1024.0;     // BVH + geometry bytes the residency manager may keep, MiB (> 0)
  double lod_jitter = 0.0;        // width of the stochastic LOD transition band, world units (>= 0)
  double diffuse_lod_bias = 0.0;  // added to diffuse rays' LOD distance (coarser), world units
  int shadow_lod_level = -1;      // shadow rays' forced level: -1 = by distance, 0..3 (clamped to
                                  // each object's coarsest)
};

// The GPU the timing model charges the units' counters to (docs/timing.md): an analytical
// bottleneck model, not a cycle simulation. Rates are per clock; "per slice" rates belong to
// each raster slice (a tile in flight), the rest to the whole GPU. A preset fills every key;
// keys given beside it override (hardware_preset()).
struct HardwareConfig {
  HardwarePreset preset = HardwarePreset::medium;
  double clock_mhz = 1800.0;                            // core clock
  int eus = 128;                                        // execution units
  int eu_lanes = 16;                                    // SIMD lanes per EU
  double eu_issue_per_clock = 1.0;                      // instructions issued per EU per clock (each over all lanes)
  MathLibrary math_library = MathLibrary::branch_free;  // "branch_free" or "baseline"
  double setup_per_clock = 2.0;                         // triangles set up per clock (front end)
  double bin_entries_per_clock = 8.0;                   // tile-list entries written per clock (front end)
  int raster_slices = 4;                                // tiles rasterized at once
  double raster_samples_per_clock = 64.0;               // per slice: coverage and depth-test samples
  double texels_per_clock = 32.0;                       // per slice: texels fetched and filtered
  double depth_samples_per_clock = 64.0;                // per slice: depth samples written (ROP)
  double color_samples_per_clock = 32.0;                // per slice: colour samples written (ROP and colour unit)
  double memory_bytes_per_clock = 128.0;                // DRAM bandwidth shared by everything
  int memory_latency_clocks = 400;                      // first access to memory, exposed once per frame
  int rt_units = 32;                                    // ray-tracing units
  double rt_box_tests_per_clock = 4.0;                  // per RT unit
  double rt_triangle_tests_per_clock = 1.0;             // per RT unit
};

// Every key of `preset` (docs/config.md cites the published figures each is loosely based on).
HardwareConfig hardware_preset(HardwarePreset preset);

struct Config {
  FrameConfig frame;
  RasterConfig raster;
  ColorConfig color;
  TilingConfig tiling;
  TessellationConfig tessellation;
  TraceConfig trace;
  RtConfig rt;
  HardwareConfig hardware;
};

// Parses JSON text; `what` names the source in error messages. Throws tessera::Error.
Config config_from_json_text(const std::string& text, const std::string& what);
Config load_config(const std::filesystem::path& path);
// Full config, every key present, as pretty JSON.
std::string config_to_json_text(const Config& config);
// Throws tessera::Error if any field is out of range.
void validate_config(const Config& config);

// One key of the config set by its dotted path, as `--set KEY=VALUE` on the command line and in
// sweep parameters: "tessellation.gpps", "8". The text is typed like the config file's value
// (a JSON number, true/false; choices by name, with or without quotes) and checked with the
// config file's messages, prefixed by "--set KEY=VALUE". `hardware.preset` fills the whole
// hardware section, as in a file; keys set after it override. Throws tessera::Error; ranges and
// cross-key rules are checked by validate_config (apply_config_settings does both).
void apply_config_override(Config& config, std::string_view dotted_key, std::string_view value_text);

// Every "KEY=VALUE" of `settings` in order through apply_config_override, then validate_config
// once (so keys that depend on each other can be set together). Throws tessera::Error naming the
// setting.
void apply_config_settings(Config& config, const std::vector<std::string>& settings);

// Every dotted key of the config ("frame.width", ...), in the order config_to_json_text writes them.
std::vector<std::string> config_keys();

}  // namespace tessera
