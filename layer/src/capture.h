// Frame capture (docs/layer.md "Frame capture"): the settings' frame list, the device's
// transform-feedback plan, patched pipelines, what a recording notes per draw and render pass,
// and the capture frame's read-back and writer thread. The capture files themselves
// (tessera::capture, docs/capture.md) are written by the renderer library.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "capture_frames.h"
#include "commands.h"
#include "msaa_readback.h"
#include "tessera/capture.h"

namespace tessera::layer {

struct DeviceData;
struct CommandBufferState;
struct InstanceData;

bool capture_on();  // the setting names frames to capture

// ---------------------------------------------------------------------------------------------
// Device creation: transformFeedback on a copy of the create info

struct CaptureDevicePlan {
  bool xfb = false;
  std::string note;  // why there is no transform feedback (stderr once, and in every record)
  VkPhysicalDeviceTransformFeedbackFeaturesEXT features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT};
  std::vector<const char*> extensions;
};
// Adds transformFeedback and VK_EXT_transform_feedback to `modified` when the device and the
// application's API versions allow; true when `modified` changed.
struct DeviceAllowance;
bool plan_capture_device(InstanceData* inst, VkPhysicalDevice physical, const DeviceAllowance& allow,
                         VkDeviceCreateInfo& modified, CaptureDevicePlan& plan);
void init_capture_device(DeviceData* d, const CaptureDevicePlan& plan, PFN_vkGetDeviceProcAddr gdpa);
// At vkDestroyDevice: the open capture frame written, the writer thread joined, objects freed.
void destroy_capture_device(DeviceData* d);

// ---------------------------------------------------------------------------------------------
// Pipelines and images

struct CapturePipeline {
  // The application's pipeline is created from its own SPIR-V; `twin` is the same pipeline with
  // the last pre-rasterization stage patched to write transform feedback, bound instead of it
  // only in noted recordings (so frames that are not captured run the application's shaders).
  bool patched = false;  // `twin` exists
  VkPipeline twin = VK_NULL_HANDLE;
  std::string skip_reason;  // why not (capture.h's reasons)
  bool ids = false;         // buffer 1: vertex and instance index
  bool tessellation = false, geometry = false, mesh = false;
  std::vector<capture::ShaderInfo> shaders;
  capture::DrawState state;
  // Dynamic state the pipeline takes from the command buffer (VK_EXT_extended_dynamic_state,
  // core in Vulkan 1.3): each draw then records the value last set in the recording.
  bool dynamic_viewport = false, dynamic_scissor = false;
  bool dynamic_cull = false, dynamic_front_face = false, dynamic_topology = false;
  bool dynamic_depth_test = false, dynamic_depth_write = false, dynamic_depth_compare = false;
};

struct CaptureImage {
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkExtent3D extent{};
  uint32_t samples = 1;
  bool readable = false;  // created with TRANSFER_SRC usage
};

VkResult capture_create_graphics_pipelines(DeviceData* d, VkDevice device, VkPipelineCache cache, uint32_t count,
                                           const VkGraphicsPipelineCreateInfo* infos,
                                           const VkAllocationCallbacks* pAllocator, VkPipeline* pipelines);
// vkDestroyPipeline: the twin is destroyed with the application's pipeline.
void capture_forget_pipeline(DeviceData* d, VkPipeline pipeline);
// vkDestroyDevice: twins of pipelines the application never destroyed.
void capture_destroy_twins(DeviceData* d);
// vkCreateImage: a copy of `ci` with TRANSFER_SRC usage for single-sample attachments (so the
// capture frame can copy them), SAMPLED usage for multisampled ones (read sample by sample by
// the compute read-back), or `ci` itself.
const VkImageCreateInfo* capture_image_info(DeviceData* d, const VkImageCreateInfo* ci, VkImageCreateInfo& copy);
// `usage`: the usage the image was created with (the copy's, or the application's).
void capture_image_created(DeviceData* d, VkImage image, const VkImageCreateInfo& ci, VkImageUsageFlags usage);
void capture_forget_image(DeviceData* d, VkImage image);
// Swapchains (called by the intercepts in objects.cpp): the presented images are attachments too.
VkResult capture_create_swapchain(DeviceData* d, VkDevice device, const VkSwapchainCreateInfoKHR* ci,
                                  const VkAllocationCallbacks* pAllocator, VkSwapchainKHR* swapchain);
void capture_swapchain_images(DeviceData* d, VkSwapchainKHR swapchain, uint32_t count, const VkImage* images);
void capture_destroy_swapchain(DeviceData* d, VkSwapchainKHR swapchain);

// ---------------------------------------------------------------------------------------------
// Recording

struct CaptureChunk {  // host-visible transform-feedback memory of one recording
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  VkDeviceSize size = 0, used = 0;
};

struct CaptureDrawNote {
  capture::Draw draw;  // positions empty; the rest as recorded
  bool instrumented = false;
  VkQueryPool pool = VK_NULL_HANDLE;
  uint32_t query = 0;
  uint32_t chunk = 0;
  VkDeviceSize position_offset = 0, id_offset = 0;
  uint32_t capacity = 0;  // vertices the buffers hold
  bool ids = false;
  VkPipeline pipeline = VK_NULL_HANDLE;
  // Secondary recordings have no queries (none can be reset inside a render pass): the end of
  // transform feedback writes the bytes written to this counter instead.
  bool counter = false;
  VkDeviceSize counter_offset = 0;
  // A vkCmdExecuteCommands of a noted secondary: its draws go here, in the primary's pass.
  CommandBufferState* secondary = nullptr;
};

struct CaptureAttachmentNote {
  VkImage image = VK_NULL_HANDLE;
  VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;  // where the recording leaves it
  capture::Attachment info;                          // texels empty
};

struct CapturePassNote {
  capture::RenderPass pass;  // attachments empty; `attachments` below hold them
  std::vector<CaptureAttachmentNote> attachments;
  bool multiview = false;
};

struct CaptureRecording {
  std::vector<CaptureChunk> chunks;
  std::vector<VkQueryPool> pools;
  VkQueryPool pass_pool = VK_NULL_HANDLE;  // queries reset for the open pass instance
  uint32_t pass_queries_used = 0, pass_query_capacity = 0;
  std::vector<CapturePassNote> passes;
  std::vector<CaptureDrawNote> draws;
  int32_t open_pass = -1;
  VkPipeline pipeline = VK_NULL_HANDLE;
  std::vector<ViewportState> viewports;
  std::vector<ScissorRect> scissors;
  // Dynamic rasterization and depth state last set (-1: not set in this recording).
  int cull = -1, front_face = -1, depth_test = -1, depth_write = -1, depth_compare = -1;
};

// vkBeginCommandBuffer: whether this recording is noted (capture frames, or a command buffer
// that may be submitted again in one). Releases the previous recording's objects.
void capture_begin_recording(DeviceData* d, CommandBufferState* cb, const VkCommandBufferBeginInfo* info);
void capture_release_recording(DeviceData* d, CommandBufferState* cb);
// vkQueueSubmit(2), before the submission is accounted: notes whether the application submits
// one-time recordings in a later frame than it recorded them in (then recordings made in the
// frame before a capture frame are noted too).
void capture_note_submission(DeviceData* d, const std::vector<VkCommandBuffer>& handles);
// vkCmdBindPipeline (graphics) in a noted recording: the pipeline to bind, the patched twin
// where there is one (counted in the recording's `capture_patched_binds`).
VkPipeline capture_bind_pipeline(DeviceData* d, CommandBufferState* cb, VkPipeline pipeline);
// vkCmdExecuteCommands in a noted primary: the noted secondaries' draws are read in its place.
void capture_execute_commands(CommandBufferState* cb, uint32_t count, const VkCommandBuffer* secondaries);
// Before the application's begin: a pass instance with its attachments.
void capture_begin_render_pass(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb,
                               const VkRenderPassBeginInfo* begin);
void capture_begin_rendering(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb,
                             const VkRenderingInfo* info);
// vkCmdBeginRendering in a noted recording: `info` with every colour and depth attachment the
// capture can read (capture_image_info made it copyable or sampleable: resolve-style transient
// multisampled attachments only where no lazily allocated memory is in play) stored instead of
// DONT_CARE, in `copy`; `info` itself when nothing changes.
const VkRenderingInfo* capture_rendering_info(DeviceData* d, const VkRenderingInfo* info, VkRenderingInfo& copy,
                                              std::vector<VkRenderingAttachmentInfo>& colours,
                                              VkRenderingAttachmentInfo& depth);
void capture_end_pass(CommandBufferState* cb);
void capture_track_layout(CommandBufferState* cb, VkImage image, VkImageLayout layout);
// Around a draw: before returns whether the draw is bracketed by transform feedback (then
// after must be called once the draw is recorded).
struct CaptureDrawCall {
  capture::DrawCall call = capture::DrawCall::draw;
  uint32_t vertex_count = 0, instance_count = 0;  // direct draws
  bool direct = true;
  // vkCmdDrawMulti(Indexed)EXT: each draw's vertex (index) count; the whole call is bracketed as
  // one captured draw whose vertex_count is their sum.
  std::span<const uint32_t> multi;
};
bool capture_before_draw(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb, const CaptureDrawCall& call);
void capture_after_draw(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb);
// vkCmdDrawMulti(Indexed)EXT: `infos` the application's VkMultiDraw(Indexed)InfoEXT array.
bool capture_before_multi_draw(DeviceData* d, VkCommandBuffer handle, CommandBufferState* cb, bool indexed,
                               uint32_t count, const unsigned char* infos, uint32_t stride, uint32_t instances);

// ---------------------------------------------------------------------------------------------
// Submission and frames

// After an application submission: in a capture frame, waits for the queue and reads the
// submitted recordings' draws and attachments into the frame being captured.
void capture_after_submit(DeviceData* d, VkQueue queue, const std::vector<VkCommandBuffer>& handles);
// A frame ended (under state_mutex): a captured frame goes to the writer thread.
void capture_end_frame(DeviceData* d, uint64_t frame);

struct CaptureDevice {
  bool xfb = false;
  std::string note;
  VkPhysicalDeviceMemoryProperties memory{};
  VkPhysicalDeviceTransformFeedbackPropertiesEXT xfb_props{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_PROPERTIES_EXT};
  uint32_t api_version = 0;  // effective: min(instance, device)
  PFN_vkCmdBindTransformFeedbackBuffersEXT bind_xfb = nullptr;
  PFN_vkCmdBeginTransformFeedbackEXT begin_xfb = nullptr;
  PFN_vkCmdEndTransformFeedbackEXT end_xfb = nullptr;
  PFN_vkCmdBeginQueryIndexedEXT begin_query = nullptr;
  PFN_vkCmdEndQueryIndexedEXT end_query = nullptr;

  std::mutex mutex;  // the maps and the frame below
  std::unordered_map<VkShaderModule, std::shared_ptr<const std::vector<uint32_t>>> modules;
  std::unordered_map<VkPipeline, std::shared_ptr<const CapturePipeline>> pipelines;
  std::unordered_map<VkImage, CaptureImage> images;
  std::unordered_map<VkSwapchainKHR, CaptureImage> swapchains;
  std::unordered_map<VkPipeline, uint32_t> budgets;  // vertices for draws of unknown size (grown on overflow)

  // The compute read-back of multisampled attachments (msaa_readback.cpp), the capture's own
  // (used under `mutex`): colour and depth shaders.
  MsaaResources colour_samples, depth_samples;

  capture::Frame frame;  // being captured
  bool frame_open = false;
  uint64_t frame_number = 0;
  capture::Capture header;  // application and device, copied into every file
  uint64_t patched = 0, patch_failed = 0, written = 0, write_failed = 0;
  // Stream queries per render pass instance: 256 at first, doubled (up to 65536) whenever a pass
  // instance runs out, so a later capture frame captures its draws; draws left out so, counted.
  // One-time recordings seen submitted in a later frame than they were begun in (an application
  // recording ahead): recordings begun in the frame before a capture frame are noted then.
  std::atomic<bool> records_ahead{false};
  std::atomic<uint32_t> queries_per_pass{256};
  std::atomic<uint64_t> query_limit_draws{0};
  bool warned = false;

  // The writer thread: one file per captured frame.
  std::mutex queue_mutex;
  std::condition_variable queue_cv;
  std::deque<std::pair<std::string, capture::Capture>> queue;
  bool stop = false;
  std::thread writer;
};

}  // namespace tessera::layer
