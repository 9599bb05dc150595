// Two windows, two swapchains, one device: the HUD of VK_LAYER_TESSERA_stats on several
// swapchains at once, on an sRGB and a UNORM swapchain, across swapchain recreation, with the
// frame records and the validation layer watching (docs/layer.md, "The HUD"). Run under Xvfb.
//
//   layer_app_windows FRAMES SCREENSHOT.png [--validation]
//
// Each loop iteration acquires an image of both swapchains and clears both in one submission
// (one render pass per window). Even iterations present both images with one vkQueuePresentKHR
// (two swapchains in one present), odd ones with two presents, one per swapchain; half-way both
// swapchains are recreated (oldSwapchain). Checks: the layer's records (TESSERA_LAYER_OUTPUT,
// frame_delimiter = present) hold one frame per present with the submissions and render passes
// made in it; with the HUD on (TESSERA_LAYER_HUD=1) a screenshot of the screen shows the HUD's
// panel in the top-left corner of both windows, where the application alone leaves its flat
// clear colour; with --validation not one validation message. Exit status 0 = pass, 1 = a
// check failed, 2 = could not run (no display, no Vulkan).

#define VK_USE_PLATFORM_XCB_KHR
#include <vulkan/vulkan.h>
#include <xcb/xcb.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tessera/image.h"
#include "test_app_support.h"

namespace {

using namespace layer_test;

constexpr uint32_t kWidth = 300, kHeight = 220;
constexpr int16_t kWindowX[2] = {10, 330};
constexpr int16_t kWindowY = 10;
// The clear colour: grey 0x40 on screen in both windows (the sRGB one is cleared with the
// linear value that encodes to it), lighter than the HUD panel's background.
constexpr float kClearUnorm = 64.0f / 255.0f;
constexpr float kClearLinear = 0.0513f;  // sRGB 0x40 decoded

struct Window {
  xcb_window_t window = 0;
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  VkSwapchainKHR swapchain = VK_NULL_HANDLE;
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  std::vector<VkImage> images;
  std::vector<VkImageView> views;
  std::vector<VkFramebuffer> framebuffers;
  VkSemaphore acquired = VK_NULL_HANDLE, rendered = VK_NULL_HANDLE;
};

bool srgb(VkFormat f) { return f == VK_FORMAT_B8G8R8A8_SRGB || f == VK_FORMAT_R8G8B8A8_SRGB; }

VkRenderPass make_render_pass(VkDevice device, VkFormat format) {
  VkAttachmentDescription att{};
  att.format = format;
  att.samples = VK_SAMPLE_COUNT_1_BIT;
  att.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  att.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  att.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  att.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  att.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  att.finalLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
  VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub{};
  sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  sub.colorAttachmentCount = 1;
  sub.pColorAttachments = &ref;
  // The acquire semaphore is waited on at the colour output stage: the layout change waits too.
  VkSubpassDependency dep{};
  dep.srcSubpass = VK_SUBPASS_EXTERNAL;
  dep.dstSubpass = 0;
  dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dep.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dep.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  VkRenderPassCreateInfo ci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  ci.attachmentCount = 1;
  ci.pAttachments = &att;
  ci.subpassCount = 1;
  ci.pSubpasses = &sub;
  ci.dependencyCount = 1;
  ci.pDependencies = &dep;
  VkRenderPass rp = VK_NULL_HANDLE;
  CHECK_VK(vkCreateRenderPass(device, &ci, nullptr, &rp));
  return rp;
}

void destroy_targets(VkDevice device, Window& w) {
  for (VkFramebuffer fb : w.framebuffers) vkDestroyFramebuffer(device, fb, nullptr);
  for (VkImageView v : w.views) vkDestroyImageView(device, v, nullptr);
  w.framebuffers.clear();
  w.views.clear();
  w.images.clear();
}

// (Re)creates the window's swapchain, replacing the old one, and its views and framebuffers.
void make_swapchain(const vkutil::Device& g, Window& w) {
  VkSurfaceCapabilitiesKHR caps{};
  CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(g.physical, w.surface, &caps));
  VkSwapchainCreateInfoKHR ci{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  ci.surface = w.surface;
  ci.minImageCount = std::max(caps.minImageCount, 2u);
  if (caps.maxImageCount) ci.minImageCount = std::min(ci.minImageCount, caps.maxImageCount);
  ci.imageFormat = w.format;
  ci.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
  ci.imageExtent = caps.currentExtent.width == UINT32_MAX ? VkExtent2D{kWidth, kHeight} : caps.currentExtent;
  ci.imageArrayLayers = 1;
  ci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  ci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
  ci.preTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
  ci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  ci.presentMode = VK_PRESENT_MODE_FIFO_KHR;
  ci.clipped = VK_TRUE;
  ci.oldSwapchain = w.swapchain;
  VkSwapchainKHR swapchain = VK_NULL_HANDLE;
  CHECK_VK(vkCreateSwapchainKHR(g.device, &ci, nullptr, &swapchain));
  if (w.swapchain) {
    destroy_targets(g.device, w);
    vkDestroySwapchainKHR(g.device, w.swapchain, nullptr);
  }
  w.swapchain = swapchain;
  uint32_t n = 0;
  CHECK_VK(vkGetSwapchainImagesKHR(g.device, swapchain, &n, nullptr));
  w.images.resize(n);
  CHECK_VK(vkGetSwapchainImagesKHR(g.device, swapchain, &n, w.images.data()));
  for (VkImage image : w.images) {
    VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = image;
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = w.format;
    vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkImageView view = VK_NULL_HANDLE;
    CHECK_VK(vkCreateImageView(g.device, &vi, nullptr, &view));
    w.views.push_back(view);
    VkFramebufferCreateInfo fi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fi.renderPass = w.render_pass;
    fi.attachmentCount = 1;
    fi.pAttachments = &view;
    fi.width = ci.imageExtent.width;
    fi.height = ci.imageExtent.height;
    fi.layers = 1;
    VkFramebuffer fb = VK_NULL_HANDLE;
    CHECK_VK(vkCreateFramebuffer(g.device, &fi, nullptr, &fb));
    w.framebuffers.push_back(fb);
  }
}

// The HUD's panel in the window's top-left corner: its text lines below the graphs mostly the
// panel's dark background (under 0x30 per channel, against the clear colour's 0x40) with light
// text in it.
bool panel_shown(const tessera::Image& shot, int window, std::string& what) {
  // The text lines below the frame-time graph (the panel at 8,8 in the window).
  const int x0 = kWindowX[window] + 12, y0 = kWindowY + 78, x1 = x0 + 150, y1 = y0 + 50;
  long dark = 0, light = 0, total = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const tessera::Rgba8 p = shot.at(x, y);
      const int r = tessera::channel(p, 0), g = tessera::channel(p, 1), b = tessera::channel(p, 2);
      dark += std::max({r, g, b}) < 0x30;
      light += std::min({r, g, b}) > 0xC0;
      ++total;
    }
  what = "window " + std::to_string(window) + " region " + std::to_string(x0) + "," + std::to_string(y0) + "-" +
         std::to_string(x1) + "," + std::to_string(y1) + ": " + std::to_string(total) + " pixels, " +
         std::to_string(dark) + " dark, " + std::to_string(light) + " light";
  return dark * 2 >= total && light >= 50;
}

// The X screen as an image (the root window: the two windows are mapped without a window
// manager, where they were asked to be).
bool screenshot(xcb_connection_t* c, xcb_screen_t* screen, tessera::Image& out) {
  const int w = screen->width_in_pixels, h = screen->height_in_pixels;
  xcb_get_image_reply_t* img = xcb_get_image_reply(
      c, xcb_get_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, screen->root, 0, 0, uint16_t(w), uint16_t(h), ~0u), nullptr);
  if (!img || xcb_get_image_data_length(img) < w * h * 4) {
    std::free(img);
    return false;
  }
  const uint8_t* px = xcb_get_image_data(img);  // BGRX, depth 24
  out = tessera::Image(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint8_t* p = px + (size_t(y) * w + x) * 4;
      out.at(x, y) = tessera::pack_rgba8(p[2], p[1], p[0]);
    }
  std::free(img);
  return true;
}

struct Expected {  // one frame as the layer should see it (frame_delimiter = present)
  uint64_t submits = 0, render_passes = 0;
};

int run(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s FRAMES SCREENSHOT.png [--validation]\n", argv[0]);
    return 2;
  }
  const int loops = std::max(2, std::atoi(argv[1]));
  const std::string png = argv[2];
  const bool validation = argc > 3 && std::string(argv[3]) == "--validation";
  const char* output_env = std::getenv("TESSERA_LAYER_OUTPUT");
  const std::string output = output_env ? output_env : "";
  const bool hud = std::getenv("TESSERA_LAYER_HUD") && std::string(std::getenv("TESSERA_LAYER_HUD")) == "1";

  xcb_connection_t* conn = xcb_connect(nullptr, nullptr);
  if (!conn || xcb_connection_has_error(conn)) {
    std::fprintf(stderr, "%s: cannot connect to the X display\n", argv[0]);
    return 2;
  }
  xcb_screen_t* screen = xcb_setup_roots_iterator(xcb_get_setup(conn)).data;
  Window win[2];
  for (int i = 0; i < 2; ++i) {
    win[i].window = xcb_generate_id(conn);
    const uint32_t values[] = {screen->black_pixel, 1};
    xcb_create_window(conn, XCB_COPY_FROM_PARENT, win[i].window, screen->root, kWindowX[i], kWindowY, kWidth, kHeight,
                      0, XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
                      XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT, values);
    xcb_map_window(conn, win[i].window);
  }
  xcb_flush(conn);

  vkutil::InstanceOptions options;
  options.application_name = "tessera_layer_app_windows";
  options.api_version = VK_API_VERSION_1_1;
  options.validation = validation;
  options.log = &g_validation;
  options.extensions = {VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XCB_SURFACE_EXTENSION_NAME};
  vkutil::Instance instance(options);
  for (Window& w : win) {
    VkXcbSurfaceCreateInfoKHR si{VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR};
    si.connection = conn;
    si.window = w.window;
    CHECK_VK(vkCreateXcbSurfaceKHR(instance.handle(), &si, nullptr, &w.surface));
  }
  vkutil::Device g = vkutil::choose_physical_device(
      instance.handle(), VK_QUEUE_GRAPHICS_BIT, [&](VkPhysicalDevice pd, const VkPhysicalDeviceProperties&) {
        VkBool32 ok = VK_FALSE;
        for (const Window& w : win) {
          vkGetPhysicalDeviceSurfaceSupportKHR(pd, 0, w.surface, &ok);
          if (!ok) return std::string("queue family 0 cannot present to the windows");
        }
        return std::string();
      });
  vkutil::DeviceRequest request;
  request.extensions = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
  vkutil::create_device(g, request);

  // Window 0 UNORM, window 1 sRGB (when the surface offers it): the HUD on both kinds.
  for (int i = 0; i < 2; ++i) {
    uint32_t n = 0;
    CHECK_VK(vkGetPhysicalDeviceSurfaceFormatsKHR(g.physical, win[i].surface, &n, nullptr));
    std::vector<VkSurfaceFormatKHR> formats(n);
    CHECK_VK(vkGetPhysicalDeviceSurfaceFormatsKHR(g.physical, win[i].surface, &n, formats.data()));
    const VkFormat want = i == 0 ? VK_FORMAT_B8G8R8A8_UNORM : VK_FORMAT_B8G8R8A8_SRGB;
    win[i].format = formats.empty() ? VK_FORMAT_UNDEFINED : formats[0].format;
    for (const VkSurfaceFormatKHR& f : formats)
      if (f.format == want && f.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) win[i].format = want;
    std::printf("window %d: format %d (%s)\n", i, int(win[i].format), srgb(win[i].format) ? "sRGB" : "UNORM");
    win[i].render_pass = make_render_pass(g.device, win[i].format);
    make_swapchain(g, win[i]);
    VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    CHECK_VK(vkCreateSemaphore(g.device, &sci, nullptr, &win[i].acquired));
    CHECK_VK(vkCreateSemaphore(g.device, &sci, nullptr, &win[i].rendered));
  }

  VkCommandPool pool = vkutil::create_command_pool(g, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT);
  VkCommandBuffer cb = vkutil::allocate_command_buffer(g.device, pool);
  VkFence fence = vkutil::create_fence(g.device);
  std::vector<Expected> expected;
  for (int loop = 0; loop < loops; ++loop) {
    if (loop == loops / 2)
      for (Window& w : win) make_swapchain(g, w);  // recreation: the HUD follows the new images
    uint32_t index[2] = {};
    for (int i = 0; i < 2; ++i)
      CHECK_VK(
          vkAcquireNextImageKHR(g.device, win[i].swapchain, UINT64_MAX, win[i].acquired, VK_NULL_HANDLE, &index[i]));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CHECK_VK(vkBeginCommandBuffer(cb, &bi));
    for (int i = 0; i < 2; ++i) {
      const float c = srgb(win[i].format) ? kClearLinear : kClearUnorm;
      VkClearValue clear{};
      clear.color = {{c, c, c, 1.0f}};
      VkRenderPassBeginInfo rbi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
      rbi.renderPass = win[i].render_pass;
      rbi.framebuffer = win[i].framebuffers[index[i]];
      rbi.renderArea = {{0, 0}, {kWidth, kHeight}};
      rbi.clearValueCount = 1;
      rbi.pClearValues = &clear;
      vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
      vkCmdEndRenderPass(cb);
    }
    CHECK_VK(vkEndCommandBuffer(cb));
    const VkSemaphore waits[2] = {win[0].acquired, win[1].acquired};
    const VkSemaphore signals[2] = {win[0].rendered, win[1].rendered};
    const VkPipelineStageFlags stages[2] = {VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                            VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT};
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.waitSemaphoreCount = 2;
    si.pWaitSemaphores = waits;
    si.pWaitDstStageMask = stages;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    si.signalSemaphoreCount = 2;
    si.pSignalSemaphores = signals;
    CHECK_VK(vkQueueSubmit(g.queue, 1, &si, fence));
    const VkSwapchainKHR swapchains[2] = {win[0].swapchain, win[1].swapchain};
    if (loop % 2 == 0) {  // both swapchains in one present
      VkPresentInfoKHR pi{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
      pi.waitSemaphoreCount = 2;
      pi.pWaitSemaphores = signals;
      pi.swapchainCount = 2;
      pi.pSwapchains = swapchains;
      pi.pImageIndices = index;
      CHECK_VK(vkQueuePresentKHR(g.queue, &pi));
      expected.push_back({1, 2});
    } else {  // one present each: two frames for the layer, the second without work
      for (int i = 0; i < 2; ++i) {
        VkPresentInfoKHR pi{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
        pi.waitSemaphoreCount = 1;
        pi.pWaitSemaphores = &signals[i];
        pi.swapchainCount = 1;
        pi.pSwapchains = &swapchains[i];
        pi.pImageIndices = &index[i];
        CHECK_VK(vkQueuePresentKHR(g.queue, &pi));
      }
      expected.push_back({1, 2});
      expected.push_back({0, 0});
    }
    CHECK_VK(vkWaitForFences(g.device, 1, &fence, VK_TRUE, UINT64_MAX));
    CHECK_VK(vkResetFences(g.device, 1, &fence));
  }
  CHECK_VK(vkQueueWaitIdle(g.queue));

  // The screen once the last images reached it (the presentation may lag the queue a little).
  bool shown = !hud;
  tessera::Image shot;
  std::string what[2];
  for (int attempt = 0; attempt < 20; ++attempt) {
    if (attempt) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!screenshot(conn, screen, shot)) continue;
    const bool a = panel_shown(shot, 0, what[0]), b = panel_shown(shot, 1, what[1]);
    if (!hud || (a && b)) {
      shown = true;
      break;
    }
  }
  if (shot.width > 0) tessera::write_png(png, shot);
  if (hud) {
    std::printf("%s\n%s\n", what[0].c_str(), what[1].c_str());
    expect(shown, "the HUD panel in both windows (" + png + ")");
  }

  vkDestroyFence(g.device, fence, nullptr);
  vkDestroyCommandPool(g.device, pool, nullptr);
  for (Window& w : win) {
    destroy_targets(g.device, w);
    vkDestroySwapchainKHR(g.device, w.swapchain, nullptr);
    vkDestroyRenderPass(g.device, w.render_pass, nullptr);
    vkDestroySemaphore(g.device, w.acquired, nullptr);
    vkDestroySemaphore(g.device, w.rendered, nullptr);
  }
  vkDestroyDevice(g.device, nullptr);
  for (Window& w : win) vkDestroySurfaceKHR(instance.handle(), w.surface, nullptr);
  instance.destroy();
  xcb_disconnect(conn);

  if (!output.empty()) {
    std::vector<nlohmann::json> records;
    std::ifstream in(output);
    expect(bool(in), "layer output " + output + " exists");
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) {
        nlohmann::json j = nlohmann::json::parse(line);
        if (!j.contains("summary")) records.push_back(std::move(j));
      }
    expect_eq("frame records (one per present)", records.size(), expected.size());
    for (size_t f = 0; f < records.size() && f < expected.size(); ++f) {
      const std::string name = "frame " + std::to_string(f) + " ";
      expect_eq(name + "frame", records[f].at("frame"), f);
      expect_eq(name + "submits", records[f].at("submits"), expected[f].submits);
      expect_eq(name + "render_passes.1", records[f].at("render_passes").at("1"), expected[f].render_passes);
      expect_eq(name + "draws", records[f].at("draws"), 0);
    }
  }
  if (validation) {
    std::printf("validation messages: %d errors, %d warnings\n", g_validation.errors.load(),
                g_validation.warnings.load());
    expect(g_validation.errors.load() == 0 && g_validation.warnings.load() == 0, "no validation message");
  }
  if (g_failures) std::fprintf(stderr, "%d check(s) failed\n", g_failures);
  return g_failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) { return layer_test::run_main(run, argc, argv); }
