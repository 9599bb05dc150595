// frame_dump: renders every shipped scene in every frame mode and writes, per case, the exact
// bytes of what the frame holds (colour, depth, samples, overlay buffers) and every statistic
// except wall-clock times, so two builds can be compared bit for bit
// (tools/identity/check-identical.sh). A refactoring tool, not a user command.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tessera/renderer.h"

namespace fs = std::filesystem;
using namespace tessera;

namespace {

template <typename T>
void write_bytes(const fs::path& path, const std::vector<T>& v) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
}

void write_stats(const fs::path& path, const Stats& s) {
  std::ofstream out(path);
  for (const auto& [k, v] : s.values()) {
    if (k.rfind("frame.time_ms.", 0) == 0 || k == "frame.threads" || k.find(".time_ms") != std::string::npos) continue;
    out << k << " = ";
    if (auto u = std::get_if<uint64_t>(&v))
      out << "u" << *u;
    else if (auto i = std::get_if<int64_t>(&v))
      out << "i" << *i;
    else if (auto d = std::get_if<double>(&v)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%a", *d);  // exact
      out << "d" << buf;
    } else
      out << "s" << std::get<std::string>(v);
    out << "\n";
  }
}

// The overlay buffers, wherever this build's Frame keeps them.
template <typename F>
const auto& diagnostics_of(const F& f) {
  if constexpr (requires { f.diagnostics; }) {
    return f.diagnostics;
  } else {
    return f;
  }
}

// Asks for the overlay buffers where the config has the switch.
template <typename C>
void ask_for_diagnostics(C& config) {
  if constexpr (requires { config.frame.diagnostics; }) config.frame.diagnostics = true;
}

void write_overlays(const fs::path& dir, const Frame& f) {
  const auto& d = diagnostics_of(f);
  std::ofstream meta(dir / "overlay_meta.txt");
  meta << d.tile_size << " " << d.tiles_x << " " << d.tiles_y << " " << d.color_blocks_x << " " << d.color_blocks_y
       << " " << d.samples_per_pixel << " " << d.atomic_size << " " << d.atomic_x << " " << d.atomic_y << "\n";
  write_bytes(dir / "tiles.bin", d.tiles);
  write_bytes(dir / "color_states.bin", d.color_states);
  write_bytes(dir / "samples.bin", d.samples);
  write_bytes(dir / "picb.bin", d.picb);
  write_bytes(dir / "supertile_of.bin", d.supertile_of);
  write_bytes(dir / "lod_levels.bin", d.lod_levels);
}

// Sets a closed-choice config field by its JSON name (a string before the config had enums).
template <typename T>
void set_choice(T& field, const char* name) {
  if constexpr (std::is_same_v<T, std::string>) {
    field = name;
  } else {
    field = parse_choice<T>("", name);
  }
}
#define SET(field, name) set_choice(field, name)

struct Case {
  std::string name;
  void (*apply)(Config&);
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: frame_dump ASSETS_DIR OUT_DIR [scene-filter]\n";
    return 2;
  }
  const fs::path assets = argv[1], out = argv[2];
  const std::string filter = argc > 3 ? argv[3] : "";
  const std::vector<std::string> scenes = {"default.json",
                                           "patches.json",
                                           "conformance/lit_spheres.json",
                                           "conformance/shiny_fog.json",
                                           "conformance/tessellation.json",
                                           "conformance/textured_box.json",
                                           "conformance/textured_quad.json",
                                           "bench/clouds.json",
                                           "bench/objects.json",
                                           "bench/lod_field.json",
                                           "bench/terrain_1m.json",
                                           "bench/instances_1m.json",
                                           "bench/far_field.json"};
  const std::vector<Case> cases = {
      {"raster1", [](Config&) {}},
      {"raster1_t24",
       [](Config& c) {
         c.raster.tile_size = 24;
         c.frame.threads = 1;
       }},
      {"raster2", [](Config& c) { c.raster.msaa = 2; }},
      {"raster4",
       [](Config& c) {
         c.raster.msaa = 4;
         c.frame.keep_samples = true;
       }},
      {"raster8", [](Config& c) { c.raster.msaa = 8; }},
      {"adaptive1", [](Config& c) { SET(c.tiling.mode, "adaptive"); }},
      {"adaptive4",
       [](Config& c) {
         SET(c.tiling.mode, "adaptive");
         c.raster.msaa = 4;
         c.frame.keep_samples = true;
       }},
      {"nobaselines",
       [](Config& c) {
         c.tiling.baselines = false;
         c.tessellation.baselines = false;
       }},
      {"gppmap",
       [](Config& c) {
         c.tessellation.gpp_map = true;
         SET(c.tessellation.policy, "leastloaded");
       }},
      {"rt", [](Config& c) { SET(c.frame.mode, "rt"); }},
      {"rt_object_lazy",
       [](Config& c) {
         SET(c.frame.mode, "rt");
         SET(c.rt.lod_selection, "object");
         SET(c.rt.residency, "lazy");
       }},
      {"hybrid", [](Config& c) { SET(c.frame.mode, "hybrid"); }},
      {"hybrid4",
       [](Config& c) {
         SET(c.frame.mode, "hybrid");
         c.raster.msaa = 4;
       }},
  };
  for (const std::string& scene_name : scenes) {
    if (!filter.empty() && scene_name.find(filter) == std::string::npos) continue;
    const Scene scene = load_scene(assets / scene_name);
    const bool big = scene_name.find("_1m") != std::string::npos || scene_name.find("far_field") != std::string::npos;
    for (const Case& c : cases) {
      if (big && c.name != "raster1" && c.name != "raster4" && c.name != "adaptive1" && c.name != "rt") continue;
      Config cfg;
      cfg.frame.width = 320;
      cfg.frame.height = 180;
      cfg.frame.threads = 2;
      ask_for_diagnostics(cfg);
      c.apply(cfg);
      Renderer renderer(cfg);
      const Frame f = renderer.render(scene, scene.camera);
      std::string stem = scene_name;
      for (char& ch : stem)
        if (ch == '/' || ch == '.') ch = '_';
      const fs::path dir = out / (stem + "." + c.name);
      fs::create_directories(dir);
      write_bytes(dir / "color.bin", f.color.pixels);
      write_bytes(dir / "depth.bin", f.depth);
      write_stats(dir / "stats.txt", f.stats);
      write_overlays(dir, f);
      std::cout << dir.filename().string() << "\n" << std::flush;
    }
  }
  return 0;
}
