#include "replay/captured_color.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "color/color_back_end.h"
#include "color/color_stats.h"
#include "tessera/memory_ledger.h"

namespace tessera::replay {

namespace {

// VkFormat values of the 8-bit RGBA colour formats replay decodes.
enum : uint32_t {
  kR8G8B8A8Unorm = 37,
  kR8G8B8A8Srgb = 43,
  kB8G8R8A8Unorm = 44,
  kB8G8R8A8Srgb = 50,
  kA8B8G8R8UnormPack32 = 51,
  kA8B8G8R8SrgbPack32 = 57,
};

bool is_srgb(uint32_t f) { return f == kR8G8B8A8Srgb || f == kB8G8R8A8Srgb || f == kA8B8G8R8SrgbPack32; }
bool is_bgra(uint32_t f) { return f == kB8G8R8A8Unorm || f == kB8G8R8A8Srgb; }
bool decodable(uint32_t f) {
  return f == kR8G8B8A8Unorm || f == kR8G8B8A8Srgb || f == kB8G8R8A8Unorm || f == kB8G8R8A8Srgb ||
         f == kA8B8G8R8UnormPack32 || f == kA8B8G8R8SrgbPack32;
}

// A clear value (linear float) as the attachment stores it.
Rgba8 encode_clear(const glm::vec4& c, uint32_t format) {
  auto unorm = [](float v) {
    return uint8_t(std::lround(std::clamp(std::isfinite(v) ? v : 0.0f, 0.0f, 1.0f) * 255.0f));
  };
  auto srgb = [](float v) { return encode_srgb8(std::clamp(std::isfinite(v) ? v : 0.0f, 0.0f, 1.0f)); };
  const bool s = is_srgb(format);
  return pack_rgba8(s ? srgb(c.r) : unorm(c.r), s ? srgb(c.g) : unorm(c.g), s ? srgb(c.b) : unorm(c.b), unorm(c.a));
}

}  // namespace

void decode_attachments(const capture::RenderPass& pass, PassReplay& pr) {
  const int w = pr.frame.color.width, h = pr.frame.color.height;
  const size_t pixels = size_t(w) * size_t(h);
  bool have_color = false;
  for (const capture::Attachment& a : pass.attachments) {
    const bool extent = int64_t(a.width) == w && int64_t(a.height) == h && a.samples == pass.samples && a.samples >= 1;
    if (a.kind == capture::AttachmentKind::color && !have_color) {
      have_color = true;
      if (a.texels.empty()) {
        pr.color_note = a.skip_reason.empty() ? "not read back" : a.skip_reason;
      } else if (!extent) {
        pr.color_note = "extent or samples differ from the pass";
      } else if (!decodable(a.vk_format) || a.texel_bytes != 4) {
        pr.color_note = "format " + std::to_string(a.vk_format) + " is not an 8-bit RGBA format";
      } else if (a.texels.size() != pixels * a.samples * 4) {
        pr.color_note = "texel bytes do not match the extent";
      } else {
        const size_t n = a.samples;
        pr.captured_samples = int(n);
        pr.captured_color_samples.resize(pixels * n);
        for (size_t i = 0; i < pixels * n; ++i) {
          const uint8_t* t = &a.texels[i * 4];
          pr.captured_color_samples[i] =
              is_bgra(a.vk_format) ? pack_rgba8(t[2], t[1], t[0], t[3]) : pack_rgba8(t[0], t[1], t[2], t[3]);
        }
        // Resolved for display: a box filter, in linear space for sRGB formats.
        pr.captured_color = Image(w, h);
        for (size_t p = 0; p < pixels; ++p) {
          float sum[3] = {0, 0, 0};
          for (size_t k = 0; k < n; ++k) {
            const Rgba8 c = pr.captured_color_samples[p * n + k];
            for (int ch = 0; ch < 3; ++ch)
              sum[ch] += is_srgb(a.vk_format) ? decode_srgb8(channel(c, ch)) : float(channel(c, ch)) / 255.0f;
          }
          uint8_t out[3];
          for (int ch = 0; ch < 3; ++ch) {
            const float v = sum[ch] / float(n);
            out[ch] = is_srgb(a.vk_format) ? encode_srgb8(v) : uint8_t(std::lround(v * 255.0f));
          }
          pr.captured_color.pixels[p] = pack_rgba8(out[0], out[1], out[2]);
        }
      }
    }
    if (a.kind == capture::AttachmentKind::depth && pr.captured_depth.empty() && !a.texels.empty() && extent) {
      const size_t n = pixels * a.samples;
      if (a.texel_bytes == 4 && a.texels.size() == n * 4) {
        pr.captured_depth.resize(n);
        std::memcpy(pr.captured_depth.data(), a.texels.data(), n * 4);
        pr.captured_depth_samples = int(a.samples);
      } else if (a.texel_bytes == 2 && a.texels.size() == n * 2) {
        pr.captured_depth.resize(n);
        for (size_t i = 0; i < n; ++i) {
          pr.captured_depth[i] = float(uint16_t(a.texels[2 * i] | a.texels[2 * i + 1] << 8)) / 65535.0f;
        }
        pr.captured_depth_samples = int(a.samples);
        pr.captured_depth_unorm_bits = 16;
        pr.captured_depth_tolerance = 1.0;  // in format steps (docs/replay.md, "Agreement with the GPU")
      }
    }
  }
  if (!have_color) pr.color_note = "the pass has no colour attachment";
}

void compare_coverage(const capture::RenderPass&, PassReplay& pr, const std::vector<uint8_t>& covered_before) {
  const int n = pr.samples;
  const std::vector<uint32_t>& sample_draw = pr.frame.diagnostics.sample_draw;
  if (pr.captured_samples != n || sample_draw.size() != pr.captured_color_samples.size()) return;
  // Covered by replay: a draw of this pass wrote the sample, or (a loaded colour attachment) a
  // draw of an earlier pass on the same image did.
  std::vector<uint32_t> mine = sample_draw;
  if (covered_before.size() == mine.size()) {
    for (size_t i = 0; i < mine.size(); ++i) mine[i] |= covered_before[i];
  }
  // The clear colour as the GPU stored it: drivers convert a float clear value to UNORM their
  // own way (lavapipe's 0.1 is not round-to-nearest's 26), so it is taken from the capture: the
  // most frequent captured value among the samples Tessera left uncovered.
  std::unordered_map<Rgba8, uint64_t> uncovered;
  for (size_t i = 0; i < mine.size(); ++i) {
    if (mine[i] == 0) ++uncovered[pr.captured_color_samples[i]];
  }
  if (uncovered.empty()) return;  // Tessera covered every sample: nothing says what the clear colour is
  Rgba8 clear = uncovered.begin()->first;
  uint64_t most = 0;
  for (const auto& [value, count] : uncovered) {
    if (count > most || (count == most && value < clear)) clear = value, most = count;
  }
  PassReplay::CoverageAgreement& c = pr.coverage;
  c.compared = true;
  c.pixels = mine.size() / size_t(n);
  for (size_t p = 0; p < c.pixels; ++p) {
    int replay = 0, gpu = 0;
    for (int k = 0; k < n; ++k) {
      replay += mine[p * size_t(n) + size_t(k)] != 0;
      gpu += pr.captured_color_samples[p * size_t(n) + size_t(k)] != clear;
    }
    c.samples_replay += uint64_t(replay);
    c.samples_capture += uint64_t(gpu);
    c.pixels_differ += replay != gpu;
    c.pixels_partial += gpu > 0 && gpu < n;
  }
}

void run_color_unit_on_capture(const Config& cfg, const capture::RenderPass& pass, PassReplay& pr) {
  const int n = pr.samples;
  if (n < 2 || pr.captured_color_samples.empty()) return;
  Frame& frame = pr.frame;
  const int w = frame.color.width, h = frame.color.height;
  const size_t pixels = size_t(w) * size_t(h);
  uint32_t format = 0;
  for (const capture::Attachment& a : pass.attachments) {
    if (a.kind == capture::AttachmentKind::color) {
      format = a.vk_format;
      break;
    }
  }
  // Uncovered samples of a single-sample capture keep the clear colour when the pass clears its
  // colour, else (loaded) the captured pixel.
  bool clears = !pass.clear_colors.empty();
  for (const capture::Attachment& a : pass.attachments) {
    if (a.kind == capture::AttachmentKind::color) {
      clears = clears && a.load_op == capture::LoadOp::clear;
      break;
    }
  }
  const Rgba8 clear = clears ? encode_clear(pass.clear_colors[0], format) : 0;
  // The samples the colour unit stores, and which quads were written.
  std::vector<Rgba8> samples;
  std::vector<uint8_t> written(pixels, 0);
  if (pr.captured_samples == n) {
    samples = pr.captured_color_samples;
    for (size_t p = 0; p < pixels; ++p) {
      for (int k = 0; k < n; ++k) written[p] |= samples[p * size_t(n) + size_t(k)] != clear;
    }
  } else {
    const std::vector<uint32_t>& covered = frame.diagnostics.sample_draw;
    samples.resize(pixels * size_t(n));
    for (size_t p = 0; p < pixels; ++p) {
      const Rgba8 c = pr.captured_color_samples[p];
      for (int k = 0; k < n; ++k) {
        const bool hit = covered.size() == samples.size() && covered[p * size_t(n) + size_t(k)] != 0;
        samples[p * size_t(n) + size_t(k)] = hit || !clears ? c : clear;
        written[p] |= hit;
      }
    }
  }
  const int tile = cfg.raster.tile_size;
  const int tiles_x = (w + tile - 1) / tile, tiles_y = (h + tile - 1) / tile;
  const size_t tiles = size_t(tiles_x) * size_t(tiles_y);
  std::vector<color::ColorCounters> counters(tiles);
  std::vector<color::ColorTraffic> traffic(tiles);
  std::vector<MemoryLedger> ledgers(tiles);
  FrameDiagnostics& diag = frame.diagnostics;
  const bool states = !diag.color_states.empty();
  const color::ColorCacheGeometry geometry{cfg.color.cache_bytes, cfg.color.line_bytes, cfg.color.ways};
  tbb::task_arena arena(cfg.frame.threads > 0 ? cfg.frame.threads : tbb::task_arena::automatic);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, tiles, 1), [&](const tbb::blocked_range<size_t>& r) {
      std::vector<Rgba8> buffer;
      for (size_t t = r.begin(); t < r.end(); ++t) {
        const int x0 = int(t % size_t(tiles_x)) * tile, y0 = int(t / size_t(tiles_x)) * tile;
        const int tw = std::min(tile, w - x0), th = std::min(tile, h - y0);
        buffer.assign(size_t(tw) * size_t(th) * size_t(n), clear);
        for (int y = 0; y < th; ++y) {
          std::copy_n(&samples[(size_t(y0 + y) * size_t(w) + size_t(x0)) * size_t(n)], size_t(tw) * size_t(n),
                      &buffer[size_t(y) * size_t(tw) * size_t(n)]);
        }
        color::ColorBackEnd back_end(geometry, n, clear, buffer.data(), tw, th);
        for (int qy = 0; qy < th; qy += 2) {
          for (int qx = 0; qx < tw; qx += 2) {
            bool any = false;
            for (int q = 0; q < 4; ++q) {
              const int x = qx + (q & 1), y = qy + (q >> 1);
              if (x < tw && y < th) any = any || written[size_t(y0 + y) * size_t(w) + size_t(x0 + x)];
            }
            if (any) back_end.on_quad_written(qx, qy);
          }
        }
        back_end.flush();
        color::ColorCounters& cc = counters[t];
        for (int b = 0; b < back_end.blocks_x() * back_end.blocks_y(); ++b) {
          const color::StoredTile& stored = back_end.final_tile(b);
          cc.add(stored);
          if (states) {
            const int bx = x0 / color::kTileWidth + b % back_end.blocks_x();
            const int by = y0 / color::kTileHeight + b / back_end.blocks_x();
            diag.color_states[size_t(by) * size_t(diag.color_blocks_x) + size_t(bx)] = uint8_t(stored.state);
          }
        }
        traffic[t] = back_end.traffic();
        // The same bytes as the tile stage charges a compressed target (tile_stage.cpp).
        auto bytes = [](uint64_t bits) { return (bits + 7) / 8; };
        const uint64_t blocks = uint64_t(back_end.blocks_x()) * uint64_t(back_end.blocks_y());
        MemoryLedger& l = ledgers[t];
        const color::ColorTraffic& tr = traffic[t];
        l.add_write(MemoryClient::color, bytes(tr.plane_bits_written) + size_t(tw) * size_t(th) * sizeof(Rgba8));
        l.add_read(MemoryClient::color, bytes(tr.plane_bits_read) + bytes(cc.plane_bits));
        l.add_write(MemoryClient::color_index, bytes(tr.index_bits_written));
        l.add_read(MemoryClient::color_index, bytes(tr.index_bits_read) + bytes(cc.index_bits));
        l.add_write(MemoryClient::color_control, bytes(tr.control_bits_written + blocks * color::kControlBits));
        l.add_read(MemoryClient::color_control, bytes(tr.control_bits_read + cc.control_bits));
      }
    });
  });
  color::ColorCounters cc;
  color::ColorTraffic tr;
  MemoryLedger colour;
  for (size_t t = 0; t < tiles; ++t) {
    cc.merge(counters[t]);
    tr.merge(traffic[t]);
    colour.merge(ledgers[t]);
  }
  color::publish_color(frame.stats, cc, tr);
  // The frame's ledger with the colour clients replaced by the captured colours' traffic.
  MemoryLedger ledger;
  for (int c = 0; c < kMemoryClientCount; ++c) {
    const std::string base = std::string("memory.") + memory_client_name(MemoryClient(c));
    if (frame.stats.has(base + ".read_bytes")) ledger.read[size_t(c)] = frame.stats.get_u64(base + ".read_bytes");
    if (frame.stats.has(base + ".written_bytes"))
      ledger.written[size_t(c)] = frame.stats.get_u64(base + ".written_bytes");
  }
  for (MemoryClient c : {MemoryClient::color, MemoryClient::color_index, MemoryClient::color_control}) {
    ledger.read[size_t(c)] = colour.read[size_t(c)];
    ledger.written[size_t(c)] = colour.written[size_t(c)];
  }
  ledger.publish(frame.stats);
}

}  // namespace tessera::replay
