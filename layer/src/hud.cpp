// The in-game HUD: at vkQueuePresentKHR, for every presented image of a swapchain the layer
// knows, one layer-owned command buffer draws a Dear ImGui panel into the image with the
// layer's own render pass (load and store, PRESENT_SRC_KHR in and out), submitted on the
// presenting queue after waiting on the application's present semaphores; the presentation
// then waits on the layer's semaphore instead (Mesa's overlay layer works the same way). The
// ImGui Vulkan backend is Debian's source, its Vulkan functions loaded from the next layer, so
// none of the HUD's work passes through this layer's counting. Off unless settings().hud.
//
// ImGui keeps a current context and the backend's function pointers in globals: one lock
// (g_hud_mutex) serialises every HUD call, each swapchain has its own context, and the
// functions are reloaded when the device changes.

#include "hud.h"

#include <imgui.h>
#include <imgui_impl_vulkan.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "layer_state.h"

namespace tessera::layer {

void HudStats::add(const FrameRecord& r) {
  Point p;
  p.cpu_ms = r.cpu_frame_time_ms;
  // GPU time is sampled (gpu_time_interval): the graph holds the last timed frame's value.
  if (r.gpu_ms >= 0) last_gpu_ms = r.gpu_ms;
  p.gpu_ms = last_gpu_ms;
  p.draws = r.cpu.draws();
  for (uint32_t t = 0; t < kTopologyCount; ++t) p.primitives += r.cpu[CpuCounters::topology(t)];
  history.push_back(p);
  if (history.size() > kHistory) history.pop_front();
  ++frames;
  if (r.gpp.valid) gpp = r.gpp;
  if (r.msaa.valid && r.msaa.uncompressed_bytes) {
    msaa_ratio = double(r.msaa.stored_bytes) / double(r.msaa.uncompressed_bytes);
    msaa_images += r.msaa.images;
  }
}

struct HudSlot {  // one in-flight HUD submission
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkSemaphore done = VK_NULL_HANDLE;
  bool pending = false;
};

struct HudSwapchain {
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkExtent2D extent{};
  uint32_t min_images = 2;
  std::vector<VkImage> images;
  std::vector<VkImageView> views;
  std::vector<VkFramebuffer> framebuffers;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool = VK_NULL_HANDLE;
  ImGuiContext* context = nullptr;
  bool backend = false;         // ImGui_ImplVulkan_Init done
  bool backend_failed = false;  // ... and failed: no HUD on this swapchain
  bool fonts_recorded = false;  // the font upload was recorded
  int fonts_slot = -1;          // slot whose submission uploads the fonts (its buffers freed after)
  std::unordered_map<uint32_t, VkCommandPool> pools;  // per queue family presenting
  std::vector<HudSlot> slots;                         // as many as images: ImGui's backend cycles its buffers so
  uint64_t draws = 0;
  // The panel's draw data (ImGui::GetDrawData() of `context`) is rebuilt only every
  // hud_refresh_ms and drawn again in between; `area` bounds its vertices: the render area.
  bool built = false;
  VkRect2D area{};
  std::vector<ImVec2> points;  // the graph's polyline, reused
};

namespace {

std::mutex g_hud_mutex;
const DeviceData* g_functions_of = nullptr;  // the device ImGui's backend functions came from

PFN_vkVoidFunction load_function(const char* name, void* user) {
  auto* d = static_cast<DeviceData*>(user);
  if (PFN_vkVoidFunction f = d->table.GetDeviceProcAddr(d->device, name)) return f;
  return d->instance->table.GetInstanceProcAddr(d->instance->instance, name);
}

bool use_device(DeviceData* d) {
  if (g_functions_of == d) return true;
  if (!ImGui_ImplVulkan_LoadFunctions(load_function, d)) return false;
  g_functions_of = d;
  return true;
}

bool srgb(VkFormat f) {
  return f == VK_FORMAT_B8G8R8A8_SRGB || f == VK_FORMAT_R8G8B8A8_SRGB || f == VK_FORMAT_A8B8G8R8_SRGB_PACK32;
}

float to_linear(float c) { return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f); }

void destroy_slot(DeviceData* d, HudSlot& s) {
  const DeviceTable& t = d->table;
  if (s.pending) t.WaitForFences(d->device, 1, &s.fence, VK_TRUE, UINT64_MAX);
  if (s.cb) t.FreeCommandBuffers(d->device, s.pool, 1, &s.cb);
  if (s.fence) t.DestroyFence(d->device, s.fence, d->alloc());
  if (s.done) t.DestroySemaphore(d->device, s.done, d->alloc());
  s = HudSlot{};
}

// Under g_hud_mutex: everything of one swapchain, after its submissions finished.
void destroy_swapchain_state(DeviceData* d, HudSwapchain& s) {
  const DeviceTable& t = d->table;
  for (HudSlot& slot : s.slots) destroy_slot(d, slot);
  if (s.context) {
    ImGui::SetCurrentContext(s.context);
    if (s.backend && use_device(d)) {
      if (s.fonts_slot >= 0) ImGui_ImplVulkan_DestroyFontUploadObjects();
      ImGui_ImplVulkan_Shutdown();
    }
    ImGui::DestroyContext(s.context);
    s.context = nullptr;
  }
  for (VkFramebuffer fb : s.framebuffers) t.DestroyFramebuffer(d->device, fb, d->alloc());
  for (VkImageView v : s.views) t.DestroyImageView(d->device, v, d->alloc());
  if (s.render_pass) t.DestroyRenderPass(d->device, s.render_pass, d->alloc());
  if (s.descriptor_pool) t.DestroyDescriptorPool(d->device, s.descriptor_pool, d->alloc());
  for (auto& [family, pool] : s.pools) t.DestroyCommandPool(d->device, pool, d->alloc());
}

// The ImGui context of a swapchain: no files (imgui.ini), the dark style, and for sRGB images
// the style's colours made linear (the image encodes them again).
ImGuiContext* make_context(bool linear_colours) {
  ImGuiContext* previous = ImGui::GetCurrentContext();
  ImGuiContext* c = ImGui::CreateContext();
  ImGui::SetCurrentContext(c);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.LogFilename = nullptr;
  ImGui::StyleColorsDark();
  // A compact panel: lavapipe and every other CPU rasteriser pay per covered pixel (most of
  // the HUD's cost, docs/layer.md "The HUD's cost"), so no padding beyond legibility, square
  // corners (fewer vertices) and no border.
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowPadding = ImVec2(5, 4);
  style.ItemSpacing = ImVec2(6, 2);
  style.WindowRounding = 0;
  style.WindowBorderSize = 0;
  if (linear_colours)
    for (ImVec4& col : ImGui::GetStyle().Colors) col = {to_linear(col.x), to_linear(col.y), to_linear(col.z), col.w};
  ImGui::SetCurrentContext(previous);
  return c;
}

// The next frame, from `frame` on, that the capture setting names; UINT64_MAX when none.
uint64_t next_capture_frame(const CaptureFrames& c, uint64_t frame) {
  if (!c.on) return UINT64_MAX;
  if (c.every) return std::max<uint64_t>(c.every, (frame + c.every - 1) / c.every * c.every);
  return frame <= c.last ? std::max(frame, c.first) : UINT64_MAX;
}

// A path that fits the panel: its last characters.
std::string panel_path(const std::string& path) {
  constexpr size_t kMax = 44;
  return path.size() <= kMax ? path : "..." + path.substr(path.size() - (kMax - 3));
}

// Under g_hud_mutex, ImGui's current context set: the capture panel.
void capture_panel(const HudStats::Capture& c, const Settings& set, uint32_t device, uint64_t open_frame) {
  if (!set.capture.on) {
    ImGui::TextUnformatted("capture off");
    return;
  }
  ImGui::Text("capture: %llu written, %llu writing, %llu failed", (unsigned long long)c.written,
              (unsigned long long)c.pending.size(), (unsigned long long)c.failed);
  const uint64_t next = next_capture_frame(set.capture, open_frame);
  if (next == open_frame)
    ImGui::Text("capturing frame %llu", (unsigned long long)next);
  else if (next != UINT64_MAX)
    ImGui::Text("next capture: frame %llu", (unsigned long long)next);
  else
    ImGui::TextUnformatted("no capture frame ahead");
  if (c.last_frame >= 0)
    ImGui::Text("last file: %s%s", panel_path(expand_path(set.capture_path, device, uint64_t(c.last_frame))).c_str(),
                c.last_failed ? " (write failed)" : "");
  if (c.frame >= 0) {
    ImGui::Text("frame %lld: %llu of %llu draws, %llu triangles", (long long)c.frame,
                (unsigned long long)c.draws_captured, (unsigned long long)c.draws, (unsigned long long)c.triangles);
    std::string why;
    for (const auto& [reason, n] : c.not_captured) why += (why.empty() ? "" : ", ") + reason + " " + std::to_string(n);
    if (!why.empty()) ImGui::Text("not captured: %s", why.c_str());
  }
}

// Under g_hud_mutex, ImGui's current context set: the CPU and GPU frame-time graphs, as two
// polylines in one box (one line of vertices each, no filled frame: fewer pixels to blend than
// two ImGui plots), with their legend above.
void frame_time_graph(HudSwapchain& s, const HudStats& h, const Settings& set) {
  const HudStats::Point last = h.history.empty() ? HudStats::Point{} : h.history.back();
  const ImGuiStyle& style = ImGui::GetStyle();
  const ImU32 cpu_colour = ImGui::GetColorU32(style.Colors[ImGuiCol_PlotLines]);
  const ImU32 gpu_colour = ImGui::GetColorU32(style.Colors[ImGuiCol_PlotHistogram]);
  float top = 1.0f;
  for (const HudStats::Point& p : h.history) top = std::max({top, float(p.cpu_ms), float(p.gpu_ms)});
  ImGui::TextColored(style.Colors[ImGuiCol_PlotLines], "CPU %.2f ms", last.cpu_ms);
  ImGui::SameLine();
  if (last.gpu_ms >= 0 && set.gpu_time_interval > 1)
    ImGui::TextColored(style.Colors[ImGuiCol_PlotHistogram], "GPU %.2f ms (1 in %llu)", last.gpu_ms,
                       (unsigned long long)set.gpu_time_interval);
  else if (last.gpu_ms >= 0)
    ImGui::TextColored(style.Colors[ImGuiCol_PlotHistogram], "GPU %.2f ms", last.gpu_ms);
  else
    ImGui::TextUnformatted("GPU not measured");
  const ImVec2 size(200.0f * set.hud_scale, 36.0f * set.hud_scale);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::Dummy(size);
  ImDrawList* list = ImGui::GetWindowDrawList();
  list->AddRect(at, ImVec2(at.x + size.x, at.y + size.y), ImGui::GetColorU32(ImGuiCol_Border));
  const float dx = (size.x - 2.0f) / float(HudStats::kHistory - 1);
  const auto y_of = [&](double ms) { return at.y + 1.0f + (size.y - 2.0f) * (1.0f - float(ms) / top); };
  // Newest point at the right edge, as ImGui's plots and MangoHud draw it.
  const float x0 = at.x + 1.0f + dx * float(HudStats::kHistory - h.history.size());
  s.points.clear();
  for (size_t i = 0; i < h.history.size(); ++i) s.points.emplace_back(x0 + dx * float(i), y_of(h.history[i].cpu_ms));
  if (s.points.size() >= 2) list->AddPolyline(s.points.data(), int(s.points.size()), cpu_colour, 0, 1.0f);
  // GPU time: from the first timed frame on (the history repeats the last timed value).
  s.points.clear();
  for (size_t i = 0; i < h.history.size(); ++i)
    if (h.history[i].gpu_ms >= 0) s.points.emplace_back(x0 + dx * float(i), y_of(h.history[i].gpu_ms));
  if (s.points.size() >= 2) list->AddPolyline(s.points.data(), int(s.points.size()), gpu_colour, 0, 1.0f);
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.1f ms", top);
  list->AddText(ImVec2(at.x + size.x - ImGui::CalcTextSize(scale).x - 2.0f, at.y + 1.0f),
                ImGui::GetColorU32(ImGuiCol_TextDisabled), scale);
}

// Under g_hud_mutex, ImGui's current context set: the panel.
void build_panel(HudSwapchain& s, const HudStats& h, const Settings& set, double gpp_count, uint32_t device,
                 uint64_t open_frame) {
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(float(s.extent.width), float(s.extent.height));
  io.DeltaTime = 1.0f / 60.0f;
  io.FontGlobalScale = set.hud_scale;
  ImGui::NewFrame();
  const bool right = set.hud_position == HudPosition::kTopRight || set.hud_position == HudPosition::kBottomRight;
  const bool bottom = set.hud_position == HudPosition::kBottomLeft || set.hud_position == HudPosition::kBottomRight;
  const float margin = 8.0f * set.hud_scale;
  ImGui::SetNextWindowPos(
      ImVec2(right ? io.DisplaySize.x - margin : margin, bottom ? io.DisplaySize.y - margin : margin), ImGuiCond_Always,
      ImVec2(right ? 1.0f : 0.0f, bottom ? 1.0f : 0.0f));
  ImGui::SetNextWindowBgAlpha(set.hud_opacity);
  ImGui::Begin("Tessera", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoInputs |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
  ImGui::Text("Tessera  frame %llu", (unsigned long long)h.frames);
  const auto shown = [&](int panel) { return (set.hud_panels >> panel) & 1u; };
  const HudStats::Point last = h.history.empty() ? HudStats::Point{} : h.history.back();
  if (shown(0)) frame_time_graph(s, h, set);  // frame_time
  if (shown(1))                               // draws
    ImGui::Text("draws %llu  primitives %llu", (unsigned long long)last.draws, (unsigned long long)last.primitives);
  if (shown(2)) {  // gpp
    if (h.gpp.valid)
      ImGui::Text("GPP x%d: balance %.3f, speedup %.2fx", h.gpp.count, h.gpp.balance, h.gpp.speedup_vs_1gpp);
    else
      ImGui::Text("GPP x%.0f: no tessellation measured", gpp_count);
  }
  if (shown(3)) {  // msaa
    if (h.msaa_ratio >= 0)
      ImGui::Text("MSAA read-back: %.3f of uncompressed", h.msaa_ratio);
    else
      ImGui::TextUnformatted(set.msaa_interval ? "MSAA read-back: nothing read yet" : "MSAA read-back off");
  }
  if (shown(4)) capture_panel(h.capture, set, device, open_frame);
  ImGui::End();
  ImGui::Render();
  // The render area: what the vertices cover (whole pixels, within the image), so that the
  // pass touches no more of the image than the panel.
  const ImDrawData* data = ImGui::GetDrawData();
  float x0 = float(s.extent.width), y0 = float(s.extent.height), x1 = 0, y1 = 0;
  for (int l = 0; data && l < data->CmdListsCount; ++l)
    for (const ImDrawVert& v : data->CmdLists[l]->VtxBuffer) {
      x0 = std::min(x0, v.pos.x), y0 = std::min(y0, v.pos.y);
      x1 = std::max(x1, v.pos.x), y1 = std::max(y1, v.pos.y);
    }
  const auto clamp = [](float v, uint32_t hi) { return uint32_t(std::clamp(v, 0.0f, float(hi))); };
  const uint32_t ax0 = clamp(std::floor(x0), s.extent.width), ay0 = clamp(std::floor(y0), s.extent.height);
  const uint32_t ax1 = clamp(std::ceil(x1) + 1.0f, s.extent.width), ay1 = clamp(std::ceil(y1) + 1.0f, s.extent.height);
  s.area = ax1 > ax0 && ay1 > ay0 ? VkRect2D{{int32_t(ax0), int32_t(ay0)}, {ax1 - ax0, ay1 - ay0}}
                                  : VkRect2D{{0, 0}, {1, 1}};  // nothing drawn: a pixel, untouched
  s.built = true;
}

// Under g_hud_mutex: ImGui's backend for this swapchain on `queue` of `family`.
bool ensure_backend(DeviceData* d, HudSwapchain& s, VkQueue queue, uint32_t family) {
  if (s.backend) return true;
  if (s.backend_failed) return false;
  ImGui::SetCurrentContext(s.context);
  ImGui_ImplVulkan_InitInfo info{};
  info.Instance = d->instance->instance;
  info.PhysicalDevice = d->physical;
  info.Device = d->device;
  info.QueueFamily = family;
  info.Queue = queue;
  info.DescriptorPool = s.descriptor_pool;
  info.MinImageCount = std::max<uint32_t>(2, s.min_images);
  info.ImageCount = std::max<uint32_t>(info.MinImageCount, uint32_t(s.slots.size()));
  info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
  info.Allocator = d->alloc();
  s.backend = use_device(d) && ImGui_ImplVulkan_Init(&info, s.render_pass);
  s.backend_failed = !s.backend;
  return s.backend;
}

VkCommandPool pool_for(DeviceData* d, HudSwapchain& s, uint32_t family) {
  VkCommandPool& pool = s.pools[family];
  if (!pool) {
    VkCommandPoolCreateInfo ci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    ci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    ci.queueFamilyIndex = family;
    if (d->table.CreateCommandPool(d->device, &ci, d->alloc(), &pool) != VK_SUCCESS) pool = VK_NULL_HANDLE;
  }
  return pool;
}

// Under g_hud_mutex: the slot ready for recording (its previous submission finished).
bool prepare_slot(DeviceData* d, HudSwapchain& s, HudSlot& slot, int index, uint32_t family) {
  const DeviceTable& t = d->table;
  if (slot.pending) {
    t.WaitForFences(d->device, 1, &slot.fence, VK_TRUE, UINT64_MAX);
    t.ResetFences(d->device, 1, &slot.fence);
    slot.pending = false;
    if (s.fonts_slot == index) {
      ImGui_ImplVulkan_DestroyFontUploadObjects();
      s.fonts_slot = -1;
    }
  }
  const VkCommandPool pool = pool_for(d, s, family);
  if (!pool) return false;
  if (slot.cb && slot.pool != pool) {  // presented from another queue family this time
    t.FreeCommandBuffers(d->device, slot.pool, 1, &slot.cb);
    slot.cb = VK_NULL_HANDLE;
  }
  if (!slot.cb) {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    if (t.AllocateCommandBuffers(d->device, &ai, &slot.cb) != VK_SUCCESS) {
      slot.cb = VK_NULL_HANDLE;
      return false;
    }
    if (d->set_loader_data)
      d->set_loader_data(d->device, slot.cb);
    else
      *reinterpret_cast<void**>(slot.cb) = *reinterpret_cast<void**>(d->device);
    slot.pool = pool;
  }
  if (!slot.fence) {
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (t.CreateFence(d->device, &fi, d->alloc(), &slot.fence) != VK_SUCCESS) return false;
  }
  if (!slot.done) {
    VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    if (t.CreateSemaphore(d->device, &si, d->alloc(), &slot.done) != VK_SUCCESS) return false;
  }
  return true;
}

// Under state_mutex: what the capture writer finished since the last look. It writes the
// frames in the order they were handed over, one at a time.
void update_capture_status(DeviceData* d) {
  CaptureDevice& c = *d->capture;
  uint64_t written = 0, failed = 0;
  {
    std::lock_guard lock(c.mutex);
    written = c.written;
    failed = c.write_failed;
  }
  HudStats::Capture& h = d->hud.capture;
  const uint64_t before = h.written + h.failed;
  for (uint64_t i = before; i < written + failed && !h.pending.empty(); ++i) {
    h.last_frame = int64_t(h.pending.front());
    h.pending.pop_front();
  }
  // The last file failed when everything finished since the last look failed.
  if (written + failed > before) h.last_failed = written == h.written;
  h.written = written;
  h.failed = failed;
}

}  // namespace

void hud_note_capture(DeviceData* d, uint64_t frame) {
  HudStats::Capture& h = d->hud.capture;
  h.frame = int64_t(frame);
  h.draws = h.draws_captured = h.triangles = 0;
  h.not_captured.clear();
  CaptureDevice& c = *d->capture;
  {
    std::lock_guard lock(c.mutex);
    if (c.frame_open) {  // else the frame had no submission: an empty capture
      for (const capture::Draw& draw : c.frame.draws) {
        ++h.draws;
        if (draw.captured) {
          ++h.draws_captured;
          h.triangles += draw.positions.size() / 3;
          continue;
        }
        auto it = std::find_if(h.not_captured.begin(), h.not_captured.end(),
                               [&](const auto& p) { return p.first == draw.skip_reason; });
        if (it == h.not_captured.end())
          h.not_captured.emplace_back(draw.skip_reason, 1);
        else
          ++it->second;
      }
    }
  }
  ++h.queued;
  h.pending.push_back(frame);
}

VkResult hud_create_swapchain(DeviceData* d, const VkSwapchainCreateInfoKHR* ci, VkSwapchainKHR swapchain) {
  // Drawing needs the images as colour attachments; a swapchain without that usage has no HUD.
  if (!(ci->imageUsage & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT)) return VK_SUCCESS;
  const DeviceTable& t = d->table;
  auto s = std::make_shared<HudSwapchain>();
  s->format = ci->imageFormat;
  s->extent = ci->imageExtent;
  s->min_images = ci->minImageCount;
  uint32_t n = 0;
  if (t.GetSwapchainImagesKHR(d->device, swapchain, &n, nullptr) != VK_SUCCESS) return VK_SUCCESS;
  s->images.resize(n);
  if (t.GetSwapchainImagesKHR(d->device, swapchain, &n, s->images.data()) < 0) return VK_SUCCESS;
  s->images.resize(n);
  s->slots.resize(n);

  VkAttachmentDescription att{};
  att.format = ci->imageFormat;
  att.samples = VK_SAMPLE_COUNT_1_BIT;
  att.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;  // on top of the application's picture
  att.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  att.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  att.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  att.initialLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
  att.finalLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
  VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub{};
  sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  sub.colorAttachmentCount = 1;
  sub.pColorAttachments = &ref;
  // The application's writes (made visible by its present semaphore wait) before ours.
  VkSubpassDependency dep{};
  dep.srcSubpass = VK_SUBPASS_EXTERNAL;
  dep.dstSubpass = 0;
  dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dep.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dep.srcAccessMask = 0;
  dep.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  VkRenderPassCreateInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  rp.attachmentCount = 1;
  rp.pAttachments = &att;
  rp.subpassCount = 1;
  rp.pSubpasses = &sub;
  rp.dependencyCount = 1;
  rp.pDependencies = &dep;
  bool ok = t.CreateRenderPass(d->device, &rp, d->alloc(), &s->render_pass) == VK_SUCCESS;
  for (size_t i = 0; ok && i < s->images.size(); ++i) {
    VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = s->images[i];
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = ci->imageFormat;
    vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkImageView view = VK_NULL_HANDLE;
    ok = t.CreateImageView(d->device, &vi, d->alloc(), &view) == VK_SUCCESS;
    if (!ok) break;
    s->views.push_back(view);
    VkFramebufferCreateInfo fi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fi.renderPass = s->render_pass;
    fi.attachmentCount = 1;
    fi.pAttachments = &view;
    fi.width = ci->imageExtent.width;
    fi.height = ci->imageExtent.height;
    fi.layers = 1;
    VkFramebuffer fb = VK_NULL_HANDLE;
    ok = t.CreateFramebuffer(d->device, &fi, d->alloc(), &fb) == VK_SUCCESS;
    if (ok) s->framebuffers.push_back(fb);
  }
  if (ok) {
    const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};  // the font texture
    VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dp.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    dp.maxSets = 1;
    dp.poolSizeCount = 1;
    dp.pPoolSizes = &size;
    ok = t.CreateDescriptorPool(d->device, &dp, d->alloc(), &s->descriptor_pool) == VK_SUCCESS;
  }
  if (ok) {
    // The new window is sized by ImGui over its first frames: rebuild in those whatever the time.
    std::lock_guard state(d->state_mutex);
    d->hud.builds_due = 3;
  }
  std::lock_guard lock(g_hud_mutex);
  if (ok) s->context = make_context(srgb(ci->imageFormat));
  if (!ok) {
    destroy_swapchain_state(d, *s);
    return VK_SUCCESS;  // the application's swapchain works; it just has no HUD
  }
  d->hud_swapchains[swapchain] = std::move(s);
  return VK_SUCCESS;
}

void hud_destroy_swapchain(DeviceData* d, VkSwapchainKHR swapchain) {
  std::lock_guard lock(g_hud_mutex);
  auto it = d->hud_swapchains.find(swapchain);
  if (it == d->hud_swapchains.end()) return;
  destroy_swapchain_state(d, *it->second);
  d->hud_swapchains.erase(it);
}

void hud_destroy_device(DeviceData* d) {
  std::lock_guard lock(g_hud_mutex);
  for (auto& [handle, s] : d->hud_swapchains) destroy_swapchain_state(d, *s);
  d->hud_swapchains.clear();
  if (g_functions_of == d) g_functions_of = nullptr;  // its address may be reused
}

const VkPresentInfoKHR* hud_present(DeviceData* d, VkQueue queue, const VkPresentInfoKHR* info, HudPresent& storage) {
  uint32_t family = UINT32_MAX;
  {
    std::shared_lock lock(d->objects_mutex);
    auto q = d->queue_families.find(queue);
    if (q != d->queue_families.end()) family = q->second;
  }
  // Drawing needs a graphics queue; a present-only family gets no HUD (docs/layer.md).
  if (family >= d->families.size() || !(d->families[family].queueFlags & VK_QUEUE_GRAPHICS_BIT)) return info;
  const Settings& set = settings();
  // The panel is rebuilt (and what it shows copied) only when due; in between the last draw
  // data is drawn again.
  std::optional<HudStats> stats;  // (an empty std::deque allocates: none when not due)
  uint64_t open_frame = 0;
  bool due = false;
  {
    std::lock_guard lock(d->state_mutex);
    const auto now = std::chrono::steady_clock::now();
    due = d->hud.builds_due > 0 || now >= d->hud.next_build;
    if (due) {
      if (d->hud.builds_due) --d->hud.builds_due;
      d->hud.next_build = now + std::chrono::milliseconds(set.hud_refresh_ms);
      if (d->capture) update_capture_status(d);
      stats.emplace(d->hud);
      open_frame = d->frames.back().index;
    }
  }
  const DeviceTable& t = d->table;
  std::lock_guard lock(g_hud_mutex);
  // Reused between presentations (under g_hud_mutex): no allocation per frame.
  static std::vector<VkSemaphore> waits;
  static std::vector<VkPipelineStageFlags> stages;
  VkSemaphore last = VK_NULL_HANDLE;
  for (uint32_t i = 0; i < info->swapchainCount; ++i) {
    auto it = d->hud_swapchains.find(info->pSwapchains[i]);
    if (it == d->hud_swapchains.end()) continue;
    HudSwapchain& s = *it->second;
    const uint32_t image = info->pImageIndices[i];
    if (image >= s.framebuffers.size() || !ensure_backend(d, s, queue, family) || !use_device(d)) continue;
    // A swapchain first presented between rebuilds has no panel yet: drawn from the next one.
    if (!due && !s.built) continue;
    ImGui::SetCurrentContext(s.context);
    // ImGui's backend cycles its vertex buffers over ImageCount draws: the slot of this draw is
    // the one whose buffers it is about to rewrite.
    const int index = int(s.draws % s.slots.size());
    HudSlot& slot = s.slots[size_t(index)];
    if (!prepare_slot(d, s, slot, index, family)) continue;
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (t.BeginCommandBuffer(slot.cb, &bi) != VK_SUCCESS) continue;
    if (!s.fonts_recorded) {
      s.fonts_recorded = ImGui_ImplVulkan_CreateFontsTexture(slot.cb);
      if (s.fonts_recorded) s.fonts_slot = index;
    }
    if (due) build_panel(s, *stats, set, set.gpps, d->index, open_frame);
    VkRenderPassBeginInfo rb{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    rb.renderPass = s.render_pass;
    rb.framebuffer = s.framebuffers[image];
    rb.renderArea = s.area;
    t.CmdBeginRenderPass(slot.cb, &rb, VK_SUBPASS_CONTENTS_INLINE);
    ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), slot.cb);
    t.CmdEndRenderPass(slot.cb);
    if (t.EndCommandBuffer(slot.cb) != VK_SUCCESS) continue;
    ++s.draws;
    // The first submission waits on the application's semaphores, each later one on the one
    // before (a binary semaphore is waited on once); the presentation on the last.
    if (last)
      waits.assign(1, last);
    else
      waits.assign(info->pWaitSemaphores, info->pWaitSemaphores + info->waitSemaphoreCount);
    stages.assign(waits.size(), VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT);
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.waitSemaphoreCount = uint32_t(waits.size());
    si.pWaitSemaphores = waits.data();
    si.pWaitDstStageMask = stages.data();
    si.commandBufferCount = 1;
    si.pCommandBuffers = &slot.cb;
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &slot.done;
    if (t.QueueSubmit(queue, 1, &si, slot.fence) != VK_SUCCESS) {
      if (last) break;  // the application's semaphores were consumed by a submission: keep the chain
      continue;
    }
    slot.pending = true;
    last = slot.done;
  }
  if (!last) return info;
  storage.info = *info;
  storage.wait = last;
  storage.info.waitSemaphoreCount = 1;
  storage.info.pWaitSemaphores = &storage.wait;
  return &storage.info;
}

}  // namespace tessera::layer
