// glTF 2.0 to Tessera's scene model (docs/scene-format.md, "glTF models"). tinygltf parses
// the JSON and gathers buffer and image bytes through our callbacks (size-capped reads, images
// kept encoded); everything it returns is checked here before use: indices into every list,
// accessor extents inside their views and buffers, strides, counts against the budgets, node
// graphs for cycles. Images used by materials are decoded in parallel (TBB) with their mip
// chains. Errors name the file and the JSON path.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <stb_image.h>
#include <tbb/parallel_for.h>
// The same options as tinygltf's implementation (gltf_tinygltf.cpp): the classes must agree.
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_FS
#include <tiny_gltf.h>

#include "tessera/error.h"
#include "tessera/gltf.h"
#include "tessera/input_file.h"

namespace tessera {

namespace {

// Files a glTF reads: the .gltf/.glb itself and its external buffers (a model's geometry can
// be large), and images (the image cap).
constexpr uint64_t kMaxGltfFileBytes = uint64_t(1) << 30;
constexpr int kMaxImageSide = 16384;
// Stored triangles and vertices over a file, as for scenes (2^26 triangles).
constexpr uint64_t kMaxGltfTriangles = uint64_t(1) << 26;
constexpr uint64_t kMaxGltfVertices = uint64_t(1) << 27;
constexpr size_t kMaxGltfNodes = size_t(1) << 24;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string at(const char* list, size_t i) { return std::string(list) + "[" + std::to_string(i) + "]"; }

// What the tinygltf callbacks share: the encoded bytes of every image, by image index.
struct LoadContext {
  std::vector<std::vector<unsigned char>> image_bytes;
  std::vector<bool> image_seen;
};

bool keep_image_bytes(tinygltf::Image* image, const int index, std::string*, std::string*, int, int,
                      const unsigned char* bytes, int size, void* user) {
  auto* ctx = static_cast<LoadContext*>(user);
  if (index < 0 || size < 0) return false;
  if (size_t(index) >= ctx->image_bytes.size()) {
    ctx->image_bytes.resize(size_t(index) + 1);
    ctx->image_seen.resize(size_t(index) + 1, false);
  }
  ctx->image_bytes[size_t(index)].assign(bytes, bytes + size);
  ctx->image_seen[size_t(index)] = true;
  image->width = image->height = -1;  // decoded later, by us
  return true;
}

bool file_exists(const std::string& path, void*) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}
std::string expand_path(const std::string& path, void*) { return path; }
bool read_whole_file(std::vector<unsigned char>* out, std::string* err, const std::string& path, void*) {
  try {
    const std::string bytes = read_input_file(path, kMaxGltfFileBytes, "glTF resource");
    out->assign(bytes.begin(), bytes.end());
    return true;
  } catch (const Error& e) {
    if (err) *err += std::string(e.what()) + "\n";
    return false;
  }
}
bool refuse_write(std::string* err, const std::string&, const std::vector<unsigned char>&, void*) {
  if (err) *err += "writing is not supported\n";
  return false;
}

class GltfReader {
 public:
  GltfReader(const tinygltf::Model& model, LoadContext& ctx, std::string file)
      : m_(model), ctx_(ctx), file_(std::move(file)) {}

  ModelContent read(const glm::mat4& placement);

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw Error(file_ + ": " + path + ": " + what);
  }
  void warn(const std::string& what) {
    if (warned_.insert(what).second) out_.report.warnings.push_back(file_ + ": " + what);
  }
  void check_extensions();
  void check_index(int index, size_t size, const std::string& path, const char* list) const {
    if (index < 0 || size_t(index) >= size) {
      fail(path, std::to_string(index) + " is not an index into " + list + " (" + std::to_string(size) + " entries)");
    }
  }
  // Accessor reading.
  struct View {
    const unsigned char* data = nullptr;  // first element
    size_t stride = 0;
    size_t count = 0;
    int components = 0;
    int component_type = 0;
    bool normalized = false;
  };
  View accessor_view(int index, const std::string& path, std::initializer_list<int> types);
  static float read_component(const View& v, size_t element, int c);
  static uint32_t read_index(const View& v, size_t element);
  // Meshes.
  void read_meshes();
  void read_primitive(size_t mesh, size_t p, const tinygltf::Primitive& prim);
  // Materials and textures.
  void read_materials();
  int texture_for(int texture, const std::string& path);
  void decode_textures();
  // Nodes.
  void walk_nodes(const glm::mat4& placement);
  void visit(int node, const glm::mat4& parent, std::vector<uint8_t>& state, const std::string& path, int depth);
  glm::mat4 local_matrix(const tinygltf::Node& n, const std::string& path) const;
  uint32_t mirrored_mesh(uint32_t mesh);

  const tinygltf::Model& m_;
  LoadContext& ctx_;
  std::string file_;
  ModelContent out_;
  std::set<std::string> warned_;
  // Per glTF mesh, per primitive: (our mesh index, glTF material index or -1); -1 mesh = skipped.
  std::vector<std::vector<std::pair<int, int>>> primitives_;
  std::vector<int> material_of_;                      // glTF material -> ours
  int default_material_ = -1;                         // for primitives without a material
  std::map<std::pair<int, int>, int> texture_of_;     // (glTF image, glTF sampler) -> ours
  std::vector<std::pair<int, int>> texture_sources_;  // ours -> (image, sampler)
  std::map<uint32_t, uint32_t> mirrored_;             // mesh -> its copy with reversed winding
  uint64_t triangles_ = 0, vertices_ = 0;
};

// Extensions this loader implements. KHR_mesh_quantization only widens the accessor types
// allowed, which every attribute reader here accepts anyway.
const std::set<std::string> kSupportedExtensions = {"KHR_lights_punctual", "KHR_mesh_quantization",
                                                    "KHR_materials_emissive_strength"};

void GltfReader::check_extensions() {
  for (size_t i = 0; i < m_.extensionsRequired.size(); ++i) {
    const std::string& name = m_.extensionsRequired[i];
    if (!kSupportedExtensions.count(name)) {
      fail(at("extensionsRequired", i), "required extension " + name +
                                            " is not supported (supported: KHR_lights_punctual, KHR_mesh_quantization, "
                                            "KHR_materials_emissive_strength)");
    }
  }
  for (const std::string& name : m_.extensionsUsed) {
    if (!kSupportedExtensions.count(name)) warn("optional extension " + name + " is not supported and is ignored");
  }
}

int component_bytes(int type) {
  switch (type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return 2;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return 4;
  }
  return 0;
}

int type_components(int type) {
  switch (type) {
    case TINYGLTF_TYPE_SCALAR: return 1;
    case TINYGLTF_TYPE_VEC2: return 2;
    case TINYGLTF_TYPE_VEC3: return 3;
    case TINYGLTF_TYPE_VEC4: return 4;
    case TINYGLTF_TYPE_MAT2: return 4;
    case TINYGLTF_TYPE_MAT3: return 9;
    case TINYGLTF_TYPE_MAT4: return 16;
  }
  return 0;
}

GltfReader::View GltfReader::accessor_view(int index, const std::string& path, std::initializer_list<int> types) {
  check_index(index, m_.accessors.size(), path, "accessors");
  const std::string where = at("accessors", size_t(index));
  const tinygltf::Accessor& a = m_.accessors[size_t(index)];
  if (a.sparse.isSparse) fail(where + ".sparse", "sparse accessors are not supported");
  View v;
  v.component_type = a.componentType;
  v.components = type_components(a.type);
  v.normalized = a.normalized;
  const int bytes = component_bytes(a.componentType);
  if (bytes == 0) fail(where + ".componentType", std::to_string(a.componentType) + " is not a glTF component type");
  if (v.components == 0) fail(where + ".type", "not a glTF accessor type");
  if (std::find(types.begin(), types.end(), a.type) == types.end()) {
    fail(where + ".type", "wrong accessor type for " + path);
  }
  if (a.count == 0) fail(where + ".count", "0 elements (at least 1)");
  if (a.count > kMaxGltfVertices * 3) {
    fail(where + ".count",
         std::to_string(a.count) + " elements exceed the limit of " + std::to_string(kMaxGltfVertices * 3));
  }
  v.count = a.count;
  const size_t element = size_t(bytes) * size_t(v.components);
  if (a.bufferView < 0) {
    // No view: every element is zero (glTF 3.6.2.3).
    static const unsigned char kZeros[64] = {};
    v.data = kZeros;
    v.stride = 0;
    return v;
  }
  check_index(a.bufferView, m_.bufferViews.size(), where + ".bufferView", "bufferViews");
  const std::string view_path = at("bufferViews", size_t(a.bufferView));
  const tinygltf::BufferView& bv = m_.bufferViews[size_t(a.bufferView)];
  check_index(bv.buffer, m_.buffers.size(), view_path + ".buffer", "buffers");
  const tinygltf::Buffer& buffer = m_.buffers[size_t(bv.buffer)];
  const size_t buffer_bytes = buffer.data.size();
  if (bv.byteOffset > buffer_bytes || bv.byteLength > buffer_bytes - bv.byteOffset) {
    fail(view_path + ".byteLength", "bytes [" + std::to_string(bv.byteOffset) + ", " +
                                        std::to_string(uint64_t(bv.byteOffset) + uint64_t(bv.byteLength)) +
                                        ") lie outside buffers[" + std::to_string(bv.buffer) + "] of " +
                                        std::to_string(buffer_bytes) + " bytes");
  }
  v.stride = bv.byteStride ? bv.byteStride : element;
  if (bv.byteStride && (bv.byteStride < element || bv.byteStride > 252)) {
    fail(view_path + ".byteStride",
         std::to_string(bv.byteStride) + " is outside [" + std::to_string(element) + ", 252] for " + where);
  }
  if (a.byteOffset % size_t(bytes) != 0) fail(where + ".byteOffset", "not a multiple of the component size");
  // The last element must end inside the view (checked in 64 bits: counts come from the file).
  const uint64_t end = uint64_t(a.byteOffset) + uint64_t(v.stride) * (uint64_t(v.count) - 1) + uint64_t(element);
  if (a.byteOffset > bv.byteLength || end > uint64_t(bv.byteLength)) {
    fail(where + ".count", std::to_string(v.count) + " elements from byte " + std::to_string(a.byteOffset) + " need " +
                               std::to_string(end) + " bytes, more than " + view_path + "'s " +
                               std::to_string(bv.byteLength));
  }
  v.data = buffer.data.data() + bv.byteOffset + a.byteOffset;
  return v;
}

float GltfReader::read_component(const View& v, size_t element, int c) {
  const unsigned char* p = v.data + v.stride * element + size_t(component_bytes(v.component_type)) * size_t(c);
  switch (v.component_type) {
    case TINYGLTF_COMPONENT_TYPE_FLOAT: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case TINYGLTF_COMPONENT_TYPE_BYTE: {
      const float x = float(int8_t(p[0]));
      return v.normalized ? std::max(x / 127.0f, -1.0f) : x;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return v.normalized ? float(p[0]) / 255.0f : float(p[0]);
    case TINYGLTF_COMPONENT_TYPE_SHORT: {
      int16_t s;
      std::memcpy(&s, p, 2);
      return v.normalized ? std::max(float(s) / 32767.0f, -1.0f) : float(s);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
      uint16_t s;
      std::memcpy(&s, p, 2);
      return v.normalized ? float(s) / 65535.0f : float(s);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
      uint32_t u;
      std::memcpy(&u, p, 4);
      return v.normalized ? float(double(u) / 4294967295.0) : float(u);
    }
  }
  return 0.0f;
}

uint32_t GltfReader::read_index(const View& v, size_t element) {
  const unsigned char* p = v.data + v.stride * element;
  switch (v.component_type) {
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return p[0];
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
      uint16_t s;
      std::memcpy(&s, p, 2);
      return s;
    }
    default: {
      uint32_t u;
      std::memcpy(&u, p, 4);
      return u;
    }
  }
}

void GltfReader::read_meshes() {
  primitives_.resize(m_.meshes.size());
  for (size_t i = 0; i < m_.meshes.size(); ++i) {
    const tinygltf::Mesh& mesh = m_.meshes[i];
    for (size_t p = 0; p < mesh.primitives.size(); ++p) read_primitive(i, p, mesh.primitives[p]);
  }
}

void GltfReader::read_primitive(size_t mesh_index, size_t p, const tinygltf::Primitive& prim) {
  const std::string path = at("meshes", mesh_index) + "." + at("primitives", p);
  auto& slot = primitives_[mesh_index];
  slot.emplace_back(-1, -1);
  const int mode = prim.mode < 0 ? TINYGLTF_MODE_TRIANGLES : prim.mode;
  if (mode == TINYGLTF_MODE_POINTS || mode == TINYGLTF_MODE_LINE || mode == TINYGLTF_MODE_LINE_LOOP ||
      mode == TINYGLTF_MODE_LINE_STRIP) {
    ++out_.report.primitives_skipped;
    warn(path + ": points and lines are not rendered; primitive skipped");
    return;
  }
  if (mode != TINYGLTF_MODE_TRIANGLES && mode != TINYGLTF_MODE_TRIANGLE_STRIP && mode != TINYGLTF_MODE_TRIANGLE_FAN) {
    fail(path + ".mode", std::to_string(prim.mode) + " is not a glTF primitive mode");
  }
  if (!prim.targets.empty()) warn(path + ": morph targets are ignored");
  const auto pos_it = prim.attributes.find("POSITION");
  if (pos_it == prim.attributes.end()) fail(path + ".attributes", "no POSITION attribute");
  const View pos = accessor_view(pos_it->second, path + ".attributes.POSITION", {TINYGLTF_TYPE_VEC3});
  View normal, uv;
  bool has_normal = false, has_uv = false;
  if (const auto it = prim.attributes.find("NORMAL"); it != prim.attributes.end()) {
    normal = accessor_view(it->second, path + ".attributes.NORMAL", {TINYGLTF_TYPE_VEC3});
    has_normal = true;
    if (normal.count != pos.count) fail(path + ".attributes.NORMAL", "count differs from POSITION's");
  }
  if (const auto it = prim.attributes.find("TEXCOORD_0"); it != prim.attributes.end()) {
    uv = accessor_view(it->second, path + ".attributes.TEXCOORD_0", {TINYGLTF_TYPE_VEC2});
    has_uv = true;
    if (uv.count != pos.count) fail(path + ".attributes.TEXCOORD_0", "count differs from POSITION's");
  }
  // The corner list in the file's order, then triangles.
  std::vector<uint32_t> corners;
  if (prim.indices >= 0) {
    const View idx = accessor_view(prim.indices, path + ".indices", {TINYGLTF_TYPE_SCALAR});
    if (idx.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
        idx.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
        idx.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT) {
      fail(at("accessors", size_t(prim.indices)) + ".componentType", "indices must be unsigned integers");
    }
    corners.resize(idx.count);
    for (size_t i = 0; i < idx.count; ++i) {
      const uint32_t k = read_index(idx, i);
      if (k >= pos.count) {
        fail(path + ".indices", "index " + std::to_string(k) + " at element " + std::to_string(i) +
                                    " is out of range (" + std::to_string(pos.count) + " vertices)");
      }
      corners[i] = k;
    }
  } else {
    corners.resize(pos.count);
    for (size_t i = 0; i < pos.count; ++i) corners[i] = uint32_t(i);
  }
  std::vector<uint32_t> tris;
  if (mode == TINYGLTF_MODE_TRIANGLES) {
    if (corners.size() % 3)
      warn(path + ": a triangle list whose corner count is not a multiple of 3; extra corners dropped");
    tris.assign(corners.begin(), corners.begin() + std::ptrdiff_t(corners.size() / 3 * 3));
  } else if (mode == TINYGLTF_MODE_TRIANGLE_STRIP) {
    // Vulkan/glTF strip order: odd triangles swap their first two corners to keep the winding.
    for (size_t i = 2; i < corners.size(); ++i) {
      if (i % 2 == 0) {
        tris.insert(tris.end(), {corners[i - 2], corners[i - 1], corners[i]});
      } else {
        tris.insert(tris.end(), {corners[i - 1], corners[i - 2], corners[i]});
      }
    }
  } else {
    for (size_t i = 2; i < corners.size(); ++i) tris.insert(tris.end(), {corners[i - 1], corners[i], corners[0]});
  }
  if (tris.empty()) {
    warn(path + ": no triangles; primitive skipped");
    return;
  }
  Mesh mesh;
  mesh.name = (m_.meshes[mesh_index].name.empty() ? at("meshes", mesh_index) : m_.meshes[mesh_index].name) + "/" +
              std::to_string(p);
  auto vertex = [&](uint32_t k) {
    Vertex v{};
    for (int c = 0; c < 3; ++c) v.position[c] = read_component(pos, k, c);
    if (has_normal) {
      for (int c = 0; c < 3; ++c) v.normal[c] = read_component(normal, k, c);
    }
    if (has_uv) {
      for (int c = 0; c < 2; ++c) v.uv[c] = read_component(uv, k, c);
    }
    for (int c = 0; c < 3; ++c) {
      if (!std::isfinite(v.position[c])) {
        fail(path + ".attributes.POSITION", "element " + std::to_string(k) + " is not finite");
      }
      if (!std::isfinite(v.normal[c]))
        fail(path + ".attributes.NORMAL", "element " + std::to_string(k) + " is not finite");
    }
    if (!std::isfinite(v.uv.x) || !std::isfinite(v.uv.y)) {
      fail(path + ".attributes.TEXCOORD_0", "element " + std::to_string(k) + " is not finite");
    }
    return v;
  };
  if (has_normal) {
    mesh.vertices.resize(pos.count);
    for (size_t k = 0; k < pos.count; ++k) {
      mesh.vertices[k] = vertex(uint32_t(k));
      const float len = glm::length(mesh.vertices[k].normal);
      if (len > 0.0f) mesh.vertices[k].normal /= len;
    }
    mesh.indices = std::move(tris);
  } else {
    // No normals: flat normals per triangle (glTF 3.7.2.1), so corners are not shared.
    mesh.vertices.reserve(tris.size());
    mesh.indices.resize(tris.size());
    for (size_t t = 0; t < tris.size(); t += 3) {
      Vertex v[3] = {vertex(tris[t]), vertex(tris[t + 1]), vertex(tris[t + 2])};
      const glm::vec3 n = glm::cross(v[1].position - v[0].position, v[2].position - v[0].position);
      const float len = glm::length(n);
      for (int c = 0; c < 3; ++c) {
        v[c].normal = len > 0.0f && std::isfinite(len) ? n / len : glm::vec3(0.0f);
        mesh.indices[t + size_t(c)] = uint32_t(mesh.vertices.size());
        mesh.vertices.push_back(v[c]);
      }
    }
  }
  triangles_ += mesh.indices.size() / 3;
  vertices_ += mesh.vertices.size();
  if (triangles_ > kMaxGltfTriangles || vertices_ > kMaxGltfVertices) {
    fail(path, "the model would store more than " + std::to_string(kMaxGltfTriangles) + " triangles or " +
                   std::to_string(kMaxGltfVertices) + " vertices");
  }
  compute_bounds(mesh);
  if (prim.material >= 0) check_index(prim.material, m_.materials.size(), path + ".material", "materials");
  slot.back() = {int(out_.meshes.size()), prim.material};
  out_.meshes.push_back(std::move(mesh));
}

TextureWrap wrap_of(int mode, const std::string& path, const GltfReader*) {
  switch (mode) {
    case TINYGLTF_TEXTURE_WRAP_REPEAT: return TextureWrap::repeat;
    case TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE: return TextureWrap::clamp_to_edge;
    case TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT: return TextureWrap::mirrored_repeat;
  }
  throw Error(path + ": " + std::to_string(mode) + " is not a glTF wrap mode");
}

int GltfReader::texture_for(int texture, const std::string& path) {
  check_index(texture, m_.textures.size(), path, "textures");
  const std::string where = at("textures", size_t(texture));
  const tinygltf::Texture& t = m_.textures[size_t(texture)];
  if (t.source < 0) fail(where + ".source", "no image (texture extensions are not supported)");
  check_index(t.source, m_.images.size(), where + ".source", "images");
  if (t.sampler >= 0) check_index(t.sampler, m_.samplers.size(), where + ".sampler", "samplers");
  const auto key = std::make_pair(t.source, t.sampler);
  if (const auto it = texture_of_.find(key); it != texture_of_.end()) return it->second;
  const int ours = int(texture_sources_.size());
  texture_of_[key] = ours;
  texture_sources_.push_back(key);
  return ours;
}

void GltfReader::read_materials() {
  material_of_.resize(m_.materials.size());
  for (size_t i = 0; i < m_.materials.size(); ++i) {
    const std::string path = at("materials", i);
    const tinygltf::Material& g = m_.materials[i];
    Material mat;
    mat.name = g.name.empty() ? path : g.name;
    const std::vector<double>& f = g.pbrMetallicRoughness.baseColorFactor;
    if (f.size() != 4) fail(path + ".pbrMetallicRoughness.baseColorFactor", "needs 4 numbers");
    for (int c = 0; c < 4; ++c) {
      if (!(f[size_t(c)] >= 0.0 && f[size_t(c)] <= 1.0)) {
        fail(path + ".pbrMetallicRoughness.baseColorFactor", "components must lie in [0, 1]");
      }
    }
    mat.base_color = glm::vec3(float(f[0]), float(f[1]), float(f[2]));
    mat.base_alpha = float(f[3]);
    const tinygltf::TextureInfo& tex = g.pbrMetallicRoughness.baseColorTexture;
    if (tex.index >= 0) {
      if (tex.texCoord != 0) warn(path + ": texCoord " + std::to_string(tex.texCoord) + " is read as set 0");
      mat.texture = texture_for(tex.index, path + ".pbrMetallicRoughness.baseColorTexture.index");
    }
    if (g.pbrMetallicRoughness.metallicRoughnessTexture.index >= 0 || g.normalTexture.index >= 0 ||
        g.occlusionTexture.index >= 0 || g.emissiveTexture.index >= 0) {
      warn("metallic-roughness, normal, occlusion and emissive textures are ignored");
    }
    const std::vector<double>& e = g.emissiveFactor;
    if (e.size() != 3) fail(path + ".emissiveFactor", "needs 3 numbers");
    double strength = 1.0;
    if (const auto it = g.extensions.find("KHR_materials_emissive_strength"); it != g.extensions.end()) {
      if (it->second.Has("emissiveStrength") && it->second.Get("emissiveStrength").IsNumber()) {
        strength = it->second.Get("emissiveStrength").GetNumberAsDouble();
      }
      if (!(strength >= 0.0 && strength <= 1e6)) {
        fail(path + ".extensions.KHR_materials_emissive_strength.emissiveStrength", "must lie in [0, 1e6]");
      }
    }
    for (int c = 0; c < 3; ++c) {
      if (!(e[size_t(c)] >= 0.0 && e[size_t(c)] <= 1.0))
        fail(path + ".emissiveFactor", "components must lie in [0, 1]");
      mat.emissive[c] = float(e[size_t(c)] * strength);
    }
    if (g.alphaMode == "OPAQUE") {
      mat.alpha_mode = AlphaMode::opaque;
    } else if (g.alphaMode == "MASK") {
      mat.alpha_mode = AlphaMode::mask;
    } else if (g.alphaMode == "BLEND") {
      mat.alpha_mode = AlphaMode::blend;
    } else {
      fail(path + ".alphaMode", "\"" + g.alphaMode + "\" is not OPAQUE, MASK or BLEND");
    }
    if (!(g.alphaCutoff >= 0.0 && g.alphaCutoff <= 1.0)) fail(path + ".alphaCutoff", "must lie in [0, 1]");
    mat.alpha_cutoff = float(g.alphaCutoff);
    mat.double_sided = g.doubleSided;
    material_of_[i] = int(out_.materials.size());
    out_.materials.push_back(mat);
  }
}

// Decodes the images the materials use, in parallel; each becomes a texture per sampler.
void GltfReader::decode_textures() {
  const auto t0 = std::chrono::steady_clock::now();
  std::map<int, size_t> slot_of;  // glTF image -> decoded slot
  std::vector<int> images;
  for (const auto& [image, sampler] : texture_sources_) {
    if (slot_of.emplace(image, images.size()).second) images.push_back(image);
  }
  // Header check first: a missing image, an undecodable one, or one too large for the budget
  // fails before anything is decoded.
  uint64_t bytes = 0;
  for (const int image : images) {
    const std::string path = at("images", size_t(image));
    const tinygltf::Image& img = m_.images[size_t(image)];
    if (size_t(image) >= ctx_.image_bytes.size() || !ctx_.image_seen[size_t(image)] ||
        ctx_.image_bytes[size_t(image)].empty()) {
      fail(path, "missing image" + (img.uri.empty() ? std::string() : " '" + img.uri.substr(0, 200) + "'"));
    }
    const auto& data = ctx_.image_bytes[size_t(image)];
    if (data.size() > kMaxImageFileBytes)
      fail(path, "image larger than " + std::to_string(kMaxImageFileBytes) + " bytes");
    int w = 0, h = 0, channels = 0;
    if (!stbi_info_from_memory(data.data(), int(data.size()), &w, &h, &channels)) {
      const char* reason = stbi_failure_reason();
      fail(path, std::string("cannot decode image: ") + (reason ? reason : "unknown format"));
    }
    if (w <= 0 || h <= 0 || w > kMaxImageSide || h > kMaxImageSide) {
      fail(path,
           std::to_string(w) + "x" + std::to_string(h) + " exceeds " + std::to_string(kMaxImageSide) + " per side");
    }
    bytes += uint64_t(w) * uint64_t(h) * 4 * 4 / 3;  // with its mip chain
  }
  if (bytes > memory_limit()) {
    fail("images", "decoded textures would need " + std::to_string(bytes >> 20) +
                       " MiB, more than the memory limit of " + std::to_string(memory_limit() >> 20) +
                       " MiB (--memory-limit)");
  }
  std::vector<Texture> decoded(images.size());
  std::vector<std::string> errors(images.size());
  tbb::parallel_for(size_t(0), images.size(), [&](size_t i) {
    const auto& data = ctx_.image_bytes[size_t(images[i])];
    int w = 0, h = 0, channels = 0;
    stbi_uc* pixels = stbi_load_from_memory(data.data(), int(data.size()), &w, &h, &channels, 4);
    if (!pixels) {
      const char* reason = stbi_failure_reason();
      errors[i] = std::string("cannot decode image: ") + (reason ? reason : "unknown reason");
      return;
    }
    Image base(w, h);
    std::memcpy(base.pixels.data(), pixels, base.pixels.size() * sizeof(Rgba8));
    stbi_image_free(pixels);
    decoded[i] = make_texture(at("images", size_t(images[i])), std::move(base));
  });
  for (size_t i = 0; i < images.size(); ++i) {
    if (!errors[i].empty()) fail(at("images", size_t(images[i])), errors[i]);
  }
  out_.report.images_decoded = images.size();
  for (const auto& [image, sampler] : texture_sources_) {
    Texture t = decoded[slot_of[image]];
    const std::string& uri = m_.images[size_t(image)].uri;
    t.name = m_.images[size_t(image)].name.empty() ? (uri.rfind("data:", 0) == 0 ? t.name : uri)
                                                   : m_.images[size_t(image)].name;
    if (sampler >= 0) {
      const std::string path = at("samplers", size_t(sampler));
      const tinygltf::Sampler& s = m_.samplers[size_t(sampler)];
      t.sampler.wrap_u = wrap_of(s.wrapS, file_ + ": " + path + ".wrapS", this);
      t.sampler.wrap_v = wrap_of(s.wrapT, file_ + ": " + path + ".wrapT", this);
      switch (s.magFilter) {
        case -1:
        case TINYGLTF_TEXTURE_FILTER_LINEAR: t.sampler.mag = TextureFilter::linear; break;
        case TINYGLTF_TEXTURE_FILTER_NEAREST: t.sampler.mag = TextureFilter::nearest; break;
        default: fail(path + ".magFilter", std::to_string(s.magFilter) + " is not a glTF filter");
      }
      switch (s.minFilter) {
        case -1:
        case TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_LINEAR:
          t.sampler.min = TextureFilter::linear, t.sampler.mip = MipFilter::linear;
          break;
        case TINYGLTF_TEXTURE_FILTER_NEAREST:
          t.sampler.min = TextureFilter::nearest, t.sampler.mip = MipFilter::none;
          break;
        case TINYGLTF_TEXTURE_FILTER_LINEAR:
          t.sampler.min = TextureFilter::linear, t.sampler.mip = MipFilter::none;
          break;
        case TINYGLTF_TEXTURE_FILTER_NEAREST_MIPMAP_NEAREST:
          t.sampler.min = TextureFilter::nearest, t.sampler.mip = MipFilter::nearest;
          break;
        case TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_NEAREST:
          t.sampler.min = TextureFilter::linear, t.sampler.mip = MipFilter::nearest;
          break;
        case TINYGLTF_TEXTURE_FILTER_NEAREST_MIPMAP_LINEAR:
          t.sampler.min = TextureFilter::nearest, t.sampler.mip = MipFilter::linear;
          break;
        default: fail(path + ".minFilter", std::to_string(s.minFilter) + " is not a glTF filter");
      }
    }
    for (const Image& level : t.levels) out_.report.texture_bytes += level.pixels.size() * sizeof(Rgba8);
    out_.textures.push_back(std::move(t));
  }
  out_.report.decode_ms = ms_since(t0);
}

glm::mat4 GltfReader::local_matrix(const tinygltf::Node& n, const std::string& path) const {
  auto finite = [&](const std::vector<double>& v, const char* key) {
    for (double x : v) {
      if (!std::isfinite(x) || std::fabs(x) > 1e7) fail(path + "." + key, "non-finite or absurd value");
    }
  };
  if (!n.matrix.empty()) {
    if (n.matrix.size() != 16) fail(path + ".matrix", "needs 16 numbers");
    finite(n.matrix, "matrix");
    glm::mat4 m;
    for (int i = 0; i < 16; ++i) glm::value_ptr(m)[i] = float(n.matrix[size_t(i)]);  // column-major, as glTF
    return m;
  }
  glm::mat4 m(1.0f);
  if (!n.translation.empty()) {
    if (n.translation.size() != 3) fail(path + ".translation", "needs 3 numbers");
    finite(n.translation, "translation");
    m = glm::translate(m, glm::vec3(float(n.translation[0]), float(n.translation[1]), float(n.translation[2])));
  }
  if (!n.rotation.empty()) {
    if (n.rotation.size() != 4) fail(path + ".rotation", "needs 4 numbers");
    finite(n.rotation, "rotation");
    glm::quat q(float(n.rotation[3]), float(n.rotation[0]), float(n.rotation[1]), float(n.rotation[2]));
    const float len = glm::length(q);
    if (!(len > 0.0f)) fail(path + ".rotation", "a zero quaternion");
    m = m * glm::mat4_cast(q / len);
  }
  if (!n.scale.empty()) {
    if (n.scale.size() != 3) fail(path + ".scale", "needs 3 numbers");
    finite(n.scale, "scale");
    m = glm::scale(m, glm::vec3(float(n.scale[0]), float(n.scale[1]), float(n.scale[2])));
  }
  return m;
}

// A mirroring transform turns counter-clockwise corners clockwise: glTF then treats clockwise
// as front (3.7.4), which a copy with reversed winding gives our counter-clockwise culling.
uint32_t GltfReader::mirrored_mesh(uint32_t mesh) {
  if (const auto it = mirrored_.find(mesh); it != mirrored_.end()) return it->second;
  Mesh copy = out_.meshes[mesh];
  copy.name += " (mirrored)";
  for (size_t t = 0; t < copy.indices.size(); t += 3) std::swap(copy.indices[t + 1], copy.indices[t + 2]);
  const uint32_t index = uint32_t(out_.meshes.size());
  out_.meshes.push_back(std::move(copy));
  mirrored_[mesh] = index;
  return index;
}

void GltfReader::visit(int node, const glm::mat4& parent, std::vector<uint8_t>& state, const std::string& path,
                       int depth) {
  check_index(node, m_.nodes.size(), path, "nodes");
  const std::string where = at("nodes", size_t(node));
  uint8_t& s = state[size_t(node)];
  if (s == 1) fail(where, "is its own ancestor (the node graph has a cycle through " + path + ")");
  if (s == 2) fail(where, "has more than one parent (reached again through " + path + ")");
  if (depth > 1024) fail(where, "the node hierarchy is deeper than 1024 levels");
  s = 1;
  const tinygltf::Node& n = m_.nodes[size_t(node)];
  const glm::mat4 world = parent * local_matrix(n, where);
  if (n.mesh >= 0) {
    check_index(n.mesh, m_.meshes.size(), where + ".mesh", "meshes");
    if (n.skin >= 0) warn(where + ": skins are not supported; the mesh is drawn in its bind pose");
    const float det = glm::determinant(glm::mat3(world));
    if (!std::isfinite(det) || std::fabs(det) < 1e-30f) {
      warn(where + ": a singular transform (zero scale); its mesh is not drawn");
    } else {
      for (const auto& [mesh, material] : primitives_[size_t(n.mesh)]) {
        if (mesh < 0) continue;
        Instance inst;
        inst.mesh = det < 0.0f ? mirrored_mesh(uint32_t(mesh)) : uint32_t(mesh);
        if (material < 0) {
          if (default_material_ < 0) {
            default_material_ = int(out_.materials.size());
            Material def;
            def.name = "glTF default material";
            def.base_color = glm::vec3(1.0f);
            out_.materials.push_back(def);
          }
          inst.material = uint32_t(default_material_);
        } else {
          inst.material = uint32_t(material_of_[size_t(material)]);
        }
        inst.transform = world;
        out_.instances.push_back(inst);
      }
    }
  }
  const glm::vec3 origin(world * glm::vec4(0, 0, 0, 1));
  if (n.camera >= 0) {
    check_index(n.camera, m_.cameras.size(), where + ".camera", "cameras");
    const tinygltf::Camera& c = m_.cameras[size_t(n.camera)];
    const std::string cpath = at("cameras", size_t(n.camera));
    if (c.type != "perspective") {
      warn(cpath + ": " + (c.type.empty() ? std::string("untyped") : c.type) + " cameras are not supported; skipped");
    } else {
      const tinygltf::PerspectiveCamera& p = c.perspective;
      const double fov = p.yfov * 180.0 / 3.14159265358979323846;
      if (!(fov > 0.0 && fov < 180.0)) fail(cpath + ".perspective.yfov", "must lie in (0, pi)");
      if (!(p.znear > 0.0 && p.znear <= 1e6)) fail(cpath + ".perspective.znear", "must lie in (0, 1e6]");
      if (p.zfar != 0.0 && !(p.zfar > p.znear && p.zfar <= 1e9)) {
        fail(cpath + ".perspective.zfar", "must be greater than znear and at most 1e9");
      }
      Camera cam;
      cam.name = c.name.empty() ? (n.name.empty() ? cpath : n.name) : c.name;
      cam.position = origin;
      const glm::vec3 forward = glm::normalize(glm::vec3(world * glm::vec4(0, 0, -1, 0)));
      cam.target = origin + forward;
      cam.up = glm::normalize(glm::vec3(world * glm::vec4(0, 1, 0, 0)));
      cam.fov_y_degrees = float(fov);
      cam.near_plane = float(p.znear);
      // An infinite projection (no zfar) gets a far plane 1e5 times the near one.
      cam.far_plane = p.zfar != 0.0 ? float(p.zfar) : float(std::min(p.znear * 1e5, 1e9));
      try {
        validate_camera(cam, file_ + ": " + cpath);
        out_.cameras.push_back(cam);
      } catch (const Error& e) {
        warn(std::string(e.what()) + "; camera skipped");
      }
    }
  }
  if (const auto it = n.extensions.find("KHR_lights_punctual"); it != n.extensions.end()) {
    const std::string lpath = where + ".extensions.KHR_lights_punctual.light";
    if (!it->second.Has("light") || !it->second.Get("light").IsNumber()) fail(lpath, "missing or not a number");
    const int index = it->second.Get("light").GetNumberAsInt();
    check_index(index, m_.lights.size(), lpath, "KHR_lights_punctual.lights");
    const tinygltf::Light& g = m_.lights[size_t(index)];
    const std::string gpath = "extensions.KHR_lights_punctual." + at("lights", size_t(index));
    Light light;
    if (g.color.size() == 3) {
      for (int c = 0; c < 3; ++c) {
        if (!(g.color[size_t(c)] >= 0.0 && g.color[size_t(c)] <= 1.0)) fail(gpath + ".color", "must lie in [0, 1]");
        light.color[c] = float(g.color[size_t(c)]);
      }
    } else if (!g.color.empty()) {
      fail(gpath + ".color", "needs 3 numbers");
    }
    if (!(g.intensity >= 0.0 && g.intensity <= 1e6)) fail(gpath + ".intensity", "must lie in [0, 1e6]");
    light.intensity = float(g.intensity);
    if (g.type == "directional") {
      light.type = LightType::directional;
      const glm::vec3 d(world * glm::vec4(0, 0, -1, 0));
      if (!(glm::length(d) > 0.0f)) fail(where, "a directional light under a singular transform");
      light.direction = glm::normalize(d);
    } else if (g.type == "point" || g.type == "spot") {
      if (g.type == "spot") warn(gpath + ": spot lights are drawn as point lights");
      light.type = LightType::point;
      light.position = origin;
    } else {
      fail(gpath + ".type", "\"" + g.type + "\" is not directional, point or spot");
    }
    if (g.range > 0.0) warn(gpath + ": light range is ignored (inverse-square falloff everywhere)");
    out_.lights.push_back(light);
  }
  for (size_t c = 0; c < n.children.size(); ++c) {
    visit(n.children[c], world, state, where + "." + at("children", c), depth + 1);
  }
  s = 2;
}

void GltfReader::walk_nodes(const glm::mat4& placement) {
  if (m_.nodes.size() > kMaxGltfNodes) fail("nodes", std::to_string(m_.nodes.size()) + " nodes exceed the limit");
  std::vector<uint8_t> state(m_.nodes.size(), 0);  // 0 unvisited, 1 on the path, 2 done
  std::vector<std::pair<int, std::string>> roots;
  if (!m_.scenes.empty()) {
    const int scene = m_.defaultScene >= 0 ? m_.defaultScene : 0;
    check_index(scene, m_.scenes.size(), "scene", "scenes");
    const tinygltf::Scene& s = m_.scenes[size_t(scene)];
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      roots.emplace_back(s.nodes[i], at("scenes", size_t(scene)) + "." + at("nodes", i));
    }
  } else {
    // No scene: every node that is no other node's child is a root.
    std::vector<bool> child(m_.nodes.size(), false);
    for (size_t i = 0; i < m_.nodes.size(); ++i) {
      for (size_t c = 0; c < m_.nodes[i].children.size(); ++c) {
        const int k = m_.nodes[i].children[c];
        check_index(k, m_.nodes.size(), at("nodes", i) + "." + at("children", c), "nodes");
        child[size_t(k)] = true;
      }
    }
    for (size_t i = 0; i < m_.nodes.size(); ++i) {
      if (!child[i]) roots.emplace_back(int(i), "nodes");
    }
    // Every node a child: there is a cycle; visiting any node finds it.
    if (roots.empty() && !m_.nodes.empty()) roots.emplace_back(0, "nodes");
  }
  for (const auto& [node, path] : roots) visit(node, placement, state, path, 0);
}

ModelContent GltfReader::read(const glm::mat4& placement) {
  check_extensions();
  const auto t0 = std::chrono::steady_clock::now();
  read_meshes();
  read_materials();
  out_.report.geometry_ms = ms_since(t0);
  walk_nodes(placement);
  decode_textures();
  out_.report.triangles = triangles_;
  out_.report.vertices = vertices_;
  for (const Mesh& mesh : out_.meshes) {
    out_.report.mesh_bytes += mesh.vertices.size() * sizeof(Vertex) + mesh.indices.size() * sizeof(uint32_t);
  }
  // The memory budget of scenes (docs/scene-format.md): stored data and one frame's work.
  SceneMemoryEstimate estimate;
  estimate.stored_bytes = out_.report.mesh_bytes + out_.report.texture_bytes;
  for (const Instance& inst : out_.instances) add_instances_to_estimate(estimate, out_.meshes[inst.mesh], 1);
  if (estimate.total() > memory_limit()) {
    fail("nodes", "the model would need about " + std::to_string(estimate.total() >> 20) +
                      " MiB to load and render, more than the memory limit of " + std::to_string(memory_limit() >> 20) +
                      " MiB (--memory-limit; docs/scene-format.md, \"Memory budget\")");
  }
  return std::move(out_);
}

ModelContent load(std::string_view bytes, const std::string& name, const std::filesystem::path& base_dir,
                  const glm::mat4& placement) {
  const auto t0 = std::chrono::steady_clock::now();
  tinygltf::TinyGLTF loader;
  LoadContext ctx;
  loader.SetImageLoader(&keep_image_bytes, &ctx);
  loader.SetFsCallbacks(tinygltf::FsCallbacks{&file_exists, &expand_path, &read_whole_file, &refuse_write, nullptr});
  tinygltf::Model model;
  std::string err, warn;
  if (bytes.size() > kMaxGltfFileBytes)
    throw Error(name + ": larger than " + std::to_string(kMaxGltfFileBytes) + " bytes");
  const bool binary = bytes.size() >= 4 && bytes.substr(0, 4) == "glTF";
  const std::string dir = base_dir.string();
  bool ok = false;
  try {
    ok = binary ? loader.LoadBinaryFromMemory(&model, &err, &warn, reinterpret_cast<const unsigned char*>(bytes.data()),
                                              unsigned(bytes.size()), dir)
                : loader.LoadASCIIFromString(&model, &err, &warn, bytes.data(), unsigned(bytes.size()), dir);
  } catch (const std::exception& e) {
    // tinygltf's JSON library throws on some malformed input (e.g. a number out of range).
    err += e.what();
    ok = false;
  }
  auto trim = [](std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    std::replace(s.begin(), s.end(), '\n', ';');
    return s.size() > 600 ? s.substr(0, 600) + "..." : s;
  };
  if (!ok) throw Error(name + ": invalid glTF: " + trim(err.empty() ? "unknown error" : err));
  // A referenced file that could not be read is an error, not the warning tinygltf leaves.
  if (!err.empty()) throw Error(name + ": " + trim(err));
  const double parse_ms = ms_since(t0);
  ModelContent content = GltfReader(model, ctx, name).read(placement);
  content.report.parse_ms = parse_ms;
  return content;
}

}  // namespace

bool is_gltf_path(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".gltf" || ext == ".glb";
}

bool is_model_path(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".obj" || is_gltf_path(path);
}

ModelContent load_gltf(const std::filesystem::path& path, const glm::mat4& placement) {
  const std::string bytes = read_input_file(path, kMaxGltfFileBytes, "glTF");
  return load(bytes, path.string(), path.parent_path(), placement);
}

ModelContent load_gltf_from_memory(std::string_view bytes, const std::string& name,
                                   const std::filesystem::path& base_dir, const glm::mat4& placement) {
  return load(bytes, name, base_dir, placement);
}

void append_model(Scene& scene, ModelContent&& content, const std::string& where) {
  const uint32_t mesh_base = uint32_t(scene.meshes.size());
  const uint32_t material_base = uint32_t(scene.materials.size());
  const int texture_base = int(scene.textures.size());
  if (scene.lights.size() + content.lights.size() > size_t(kMaxLights)) {
    throw Error(where + ": " + std::to_string(scene.lights.size() + content.lights.size()) +
                " lights with the model's, at most " + std::to_string(kMaxLights));
  }
  for (Mesh& m : content.meshes) scene.meshes.push_back(std::move(m));
  for (Texture& t : content.textures) scene.textures.push_back(std::move(t));
  for (Material m : content.materials) {
    if (m.texture >= 0) m.texture += texture_base;
    scene.materials.push_back(m);
  }
  for (Instance inst : content.instances) {
    inst.mesh += mesh_base;
    inst.material += material_base;
    scene.instances.push_back(inst);
  }
  scene.lights.insert(scene.lights.end(), content.lights.begin(), content.lights.end());
  scene.cameras.insert(scene.cameras.end(), content.cameras.begin(), content.cameras.end());
}

Camera framing_camera(const glm::vec3& bounds_min, const glm::vec3& bounds_max) {
  glm::vec3 centre = (bounds_min + bounds_max) * 0.5f;
  float radius = glm::length(bounds_max - bounds_min) * 0.5f;
  if (!(radius > 1e-6f) || !std::isfinite(radius)) radius = 1.0f;
  if (!std::isfinite(centre.x + centre.y + centre.z)) centre = glm::vec3(0.0f);
  Camera cam;
  cam.name = "framing";
  cam.fov_y_degrees = 45.0f;
  const float distance = radius / std::sin(glm::radians(cam.fov_y_degrees * 0.5f)) * 1.05f;
  cam.target = centre;
  cam.position = centre + glm::normalize(glm::vec3(0.45f, 0.35f, 1.0f)) * distance;
  cam.near_plane = std::max(distance - radius * 1.5f, distance * 1e-3f);
  cam.far_plane = distance + radius * 2.0f;
  return cam;
}

Scene load_gltf_scene(const std::filesystem::path& path) {
  ModelContent content = is_gltf_path(path) ? load_gltf(path) : load_obj_model(path);
  for (const std::string& w : content.report.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  const ModelLoadReport& r = content.report;
  std::fprintf(stderr,
               "loaded %s: %llu triangles, %llu vertices (%.1f MiB), %llu images decoded (%.1f MiB with mip chains); "
               "parse %.0f ms, geometry %.0f ms, textures %.0f ms\n",
               path.string().c_str(), (unsigned long long)r.triangles, (unsigned long long)r.vertices,
               double(r.mesh_bytes) / 1048576.0, (unsigned long long)r.images_decoded,
               double(r.texture_bytes) / 1048576.0, r.parse_ms, r.geometry_ms, r.decode_ms);
  Scene scene;
  scene.source = path;
  const bool lights = !content.lights.empty();
  append_model(scene, std::move(content), path.string());
  // World bounds of every instance, for the default camera.
  glm::vec3 lo(std::numeric_limits<float>::max()), hi(-std::numeric_limits<float>::max());
  for (const Instance& inst : scene.instances) {
    const Mesh& m = scene.meshes[inst.mesh];
    for (int c = 0; c < 8; ++c) {
      const glm::vec3 p((c & 1) ? m.bounds_max.x : m.bounds_min.x, (c & 2) ? m.bounds_max.y : m.bounds_min.y,
                        (c & 4) ? m.bounds_max.z : m.bounds_min.z);
      const glm::vec3 w(inst.transform * glm::vec4(p, 1.0f));
      lo = glm::min(lo, w);
      hi = glm::max(hi, w);
    }
  }
  if (scene.instances.empty()) lo = hi = glm::vec3(0.0f);
  scene.camera = scene.cameras.empty() ? framing_camera(lo, hi) : scene.cameras.front();
  if (!lights) {
    // A default light: a sun from over the viewer's shoulder, as viewers of glTF files do.
    Light sun;
    sun.direction = glm::normalize(glm::vec3(-0.4f, -1.0f, -0.6f));
    sun.intensity = 1.0f;
    scene.lights.push_back(sun);
  }
  scene.ambient = glm::vec3(0.15f);
  scene.background = glm::vec3(0.30f, 0.34f, 0.40f);
  validate_scene(scene, path.string());
  return scene;
}

}  // namespace tessera
