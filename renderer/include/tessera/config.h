// Configuration: one nested struct with documented defaults (docs/config.md), read from and
// written to JSON. Unknown keys and out-of-range values are errors, never silently ignored.
#pragma once

#include <filesystem>
#include <string>

namespace tessera {

struct FrameConfig {
  int width = 1280;    // pixels, 1..16384
  int height = 720;    // pixels, 1..16384
  int threads = 0;     // worker threads; 0 = all hardware threads
  bool keep_samples = false;  // keep every colour sample of a multisampled frame in Frame::samples
  std::string mode = "raster";  // "raster", "rt" (every ray through the RT unit) or "hybrid"
                                // (raster visibility + rays for shadows and reflections)
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
};

// Tiling (adaptive-tiling spec). The PICB over atomic tiles and the supertiles grown from it
// are generated every frame; `mode` chooses what the raster path renders: fixed tiles of
// raster.tile_size, or the supertiles (binned on atomic tiles, one tile buffer per supertile).
struct TilingConfig {
  std::string mode = "fixed";        // "fixed" or "adaptive"
  int atomic_size = 16;              // atomic tile edge in pixels: multiple of 8, 8..256
  int tile_buffer_bytes = 524288;    // on-chip tile buffer a supertile must fit (colour + depth, all samples)
  double alpha = 0.5;                // PIC weight of vertex bytes; beta = 1 - alpha weights shader length
  bool baselines = true;             // also account fixed 16..256 and adaptive tiles on every frame
};

// Tessellation of the scene's patch meshes through the array of geometry processing pipelines
// (tessellation-distribution spec, docs/gpp.md). The frame is tessellated by the on-chip
// redistribution design; the baselines run on the same patch stream for their counters.
struct TessellationConfig {
  int gpps = 4;                      // N geometry processing pipelines, 1..16
  int batch_size = 32;               // patches per input batch, 1..1024
  std::string policy = "roundrobin";  // "roundrobin" (the spec) or "leastloaded"
  bool baselines = true;             // also run no-redistribution and off-chip on every frame
  bool gpp_map = false;              // render the GPP map: tessellated triangles in the colour
                                     // of the GPP that tessellated them, the rest grey
};

// What rt and hybrid frames trace beyond primary visibility (docs/rt.md, Rendering).
struct TraceConfig {
  bool shadows = true;        // a shadow ray (any hit) to every light a surface faces
  bool reflections = true;    // one bounce of mirror reflection for materials with reflectivity > 0
  int diffuse_samples = 1;    // cosine-weighted diffuse bounce rays per pixel (rt mode), 0..64
  int seed = 1;               // diffuse sampling seed (per pixel: independent of threads)
};

// The ray-tracing unit's LOD nodes and residency manager (docs/rt.md, LOD nodes).
struct RtConfig {
  bool lod = true;                  // per-ray LOD selection at LOD nodes; false = finest level everywhere
  std::string lod_selection = "ray";  // "ray": each ray picks at each LOD node (the spec's unit);
                                      // "object": one level per object per frame from the camera
                                      // distance (the rasterizer's way, for comparison)
  std::string residency = "all";    // LOD levels in memory: "all", "demand" (load on first touch,
                                    // rays wait) or "lazy" (substitute, load after the frame)
  double budget_mib = 1024.0;       // BVH + geometry bytes the residency manager may keep, MiB (> 0)
  double lod_jitter = 0.0;          // width of the stochastic LOD transition band, world units (>= 0)
  double diffuse_lod_bias = 0.0;    // added to diffuse rays' LOD distance (coarser), world units
  int shadow_lod_level = -1;        // shadow rays' forced level: -1 = by distance, 0..3 (clamped to
                                    // each object's coarsest)
};

struct Config {
  FrameConfig frame;
  RasterConfig raster;
  ColorConfig color;
  TilingConfig tiling;
  TessellationConfig tessellation;
  TraceConfig trace;
  RtConfig rt;
};

// Parses JSON text; `what` names the source in error messages. Throws tessera::Error.
Config config_from_json_text(const std::string& text, const std::string& what);
Config load_config(const std::filesystem::path& path);
// Full config, every key present, as pretty JSON.
std::string config_to_json_text(const Config& config);
// Throws tessera::Error if any field is out of range.
void validate_config(const Config& config);

}  // namespace tessera
