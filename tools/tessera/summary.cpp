#include "summary.h"

#include <cstdio>
#include <variant>

namespace tessera::cli {

namespace {

double num(const Stats& s, const char* key) { return s.has(key) ? s.get_number(key) : 0.0; }

std::string line(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), fmt, args...);
  return buf;
}

double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

// The timing model's line (docs/timing.md): the modelled frame time and what limits it.
std::string timing_summary(const Stats& s) {
  if (!s.has("timing.frame.ms")) return "";
  const auto* hardware = std::get_if<std::string>(&s.get("timing.hardware"));
  const auto* limiter = std::get_if<std::string>(&s.get("timing.bottleneck.frame"));
  const std::string unit = limiter ? *limiter : "?";
  const std::string share_key = "timing.unit." + unit + ".utilization";
  return line(
      "timing   %.3f ms modelled on %s hardware at %.0f MHz (front end %.0f, tiles %.0f cycles); "
      "limited by %s (%.0f%% busy)\n",
      num(s, "timing.frame.ms"), hardware ? hardware->c_str() : "?", num(s, "timing.clock_mhz"),
      num(s, "timing.front_end.cycles"), num(s, "timing.tiles.cycles"), unit.c_str(),
      100.0 * num(s, share_key.c_str()));
}

}  // namespace

// The ray-tracing unit's line (rt and hybrid frames).
std::string rt_summary(const Stats& s) {
  return line(
      "rt       rays primary %.0f, shadow %.0f, diffuse %.0f, reflection %.0f (%.0f hit); %.0f interior nodes, "
      "%.0f leaves, %.0f LOD nodes, %.0f triangle tests; BVH %s in %.1f ms, trace %.1f ms\n",
      num(s, "rt.rays.primary"), num(s, "rt.rays.shadow"), num(s, "rt.rays.diffuse"), num(s, "rt.rays.reflection"),
      num(s, "rt.rays.hit"), num(s, "rt.nodes.interior"), num(s, "rt.nodes.leaf"), num(s, "rt.nodes.lod"),
      num(s, "rt.triangles.tested"), num(s, "rt.bvh.built") > 0 ? "built" : "reused", num(s, "frame.time_ms.bvh_build"),
      num(s, "frame.time_ms.trace"));
}

std::string frame_summary(const Stats& s) {
  const auto* mode = s.has("frame.mode") ? std::get_if<std::string>(&s.get("frame.mode")) : nullptr;
  if (mode && *mode == "rt") {
    std::string out =
        line("frame    %.0fx%.0f, rt, %.0f triangles, %.0f threads, %.1f ms\n", num(s, "frame.width"),
             num(s, "frame.height"), num(s, "frame.triangles"), num(s, "frame.threads"), num(s, "frame.time_ms.total"));
    out += rt_summary(s);
    out += line("eu       %.1f M instructions in the closest-hit program\n", num(s, "eu.dynamic_instructions") * 1e-6);
    out += timing_summary(s);
    return out;
  }
  std::string out;
  out += line(
      "frame    %.0fx%.0f, %.0f draws, %.0f triangles, %.0f tiles of %.0f px, %.0f threads, %.1f ms "
      "(vertex %.1f, primitive %.1f, tile %.1f)\n",
      num(s, "frame.width"), num(s, "frame.height"), num(s, "frame.draws"), num(s, "frame.triangles"),
      num(s, "frame.tiles"), num(s, "frame.tile_size"), num(s, "frame.threads"), num(s, "frame.time_ms.total"),
      num(s, "frame.time_ms.vertex"), num(s, "frame.time_ms.primitive"), num(s, "frame.time_ms.tile"));
  const double in = num(s, "raster.triangles.in");
  const double culled = num(s, "raster.triangles.culled_frustum") + num(s, "raster.triangles.culled_backface") +
                        num(s, "raster.triangles.culled_frontface") + num(s, "raster.triangles.culled_scissor") +
                        num(s, "raster.triangles.culled_degenerate") + num(s, "raster.triangles.culled_nonfinite");
  // The back-face and degenerate tests see the clipper's output, not the input triangles: a
  // clipped triangle is replaced by its pieces, each of which can be culled (two pieces of one
  // triangle with 1e38 coordinates read as 200% of the input). Shares are of the triangles the
  // tests saw, so set up + culled = 100%.
  const double clipped = num(s, "raster.triangles.clipped");
  const double after_clipping = in - clipped + num(s, "raster.triangles.clip_output");
  out += line(
      "raster   %.0f VS, %.0f triangles in, %.0f clipped into %.0f, %.0f culled (%.1f%% of %.0f after clipping), "
      "%.0f set up, %.2f tiles per triangle\n",
      num(s, "raster.vs.invocations"), in, clipped, num(s, "raster.triangles.clip_output"), culled,
      after_clipping > 0 ? 100.0 * culled / after_clipping : 0.0, after_clipping, num(s, "raster.triangles.setup"),
      num(s, "raster.triangles.setup") > 0 ? num(s, "raster.bins.entries") / num(s, "raster.triangles.setup") : 0.0);
  // The depth test counts samples: its share is of covered samples, not of covered pixels
  // (which at MSAA would give up to samples x 100%).
  const double covered_samples = num(s, "raster.samples.covered");
  out += line(
      "         %.0f fragments covered (%.0f samples), %.0f samples passed depth (%.1f%%), %.0f FS invocations "
      "(%.1f%% helpers)\n",
      num(s, "raster.fragments.covered"), covered_samples, num(s, "raster.depth.passed"),
      covered_samples > 0 ? 100.0 * num(s, "raster.depth.passed") / covered_samples : 0.0,
      num(s, "raster.fs.invocations"),
      num(s, "raster.fs.invocations") > 0
          ? 100.0 * num(s, "raster.fs.helper_invocations") / num(s, "raster.fs.invocations")
          : 0.0);
  const double fs = num(s, "raster.fs.invocations") - num(s, "raster.fs.helper_invocations");
  out += line(
      "eu       %.1f M instructions: vertex %.0f per invocation, fragment %.1f per live pixel; calls rsqrt %.0f, "
      "sqrt %.0f, div %.0f, pow %.0f, exp %.0f\n",
      num(s, "eu.dynamic_instructions") * 1e-6, num(s, "shader.vertex.instructions_per_invocation"),
      fs > 0 ? num(s, "eu.stage.fragment.dynamic_instructions") / fs : 0.0, num(s, "eu.math.calls.rsqrt"),
      num(s, "eu.math.calls.sqrt"), num(s, "eu.math.calls.div"), num(s, "eu.math.calls.pow"),
      num(s, "eu.math.calls.exp"));
  out +=
      line("texture  %.0f samples, %.0f texels fetched\n", num(s, "texture.samples"), num(s, "texture.texel_fetches"));
  out += line("memory   read %.1f MiB, written %.1f MiB:", mib(num(s, "memory.total.read_bytes")),
              mib(num(s, "memory.total.written_bytes")));
  for (const auto& [name, value] : s.values()) {
    const std::string prefix = "memory.";
    if (name.rfind(prefix, 0) != 0 || name.rfind("memory.total.", 0) == 0) continue;
    if (name.size() > 11 && name.compare(name.size() - 11, 11, ".read_bytes") == 0) {
      const std::string client = name.substr(prefix.size(), name.size() - prefix.size() - 11);
      const double r = num(s, name.c_str());
      const double w = num(s, (prefix + client + ".written_bytes").c_str());
      if (r > 0 || w > 0) out += line(" %s r%.1f/w%.1f", client.c_str(), mib(r), mib(w));
    }
  }
  out += "\n";
  if (num(s, "rt.rays.primary") + num(s, "rt.rays.shadow") > 0) out += rt_summary(s);
  out += timing_summary(s);
  return out;
}

}  // namespace tessera::cli
