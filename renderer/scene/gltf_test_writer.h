// A small glTF 2.0 writer for tests (and the fuzz target's seeds): one binary buffer, views
// and accessors appended as typed arrays, the JSON built with nlohmann::json so a test can
// then break any field on purpose. Writes .gltf with a data URI or an external .bin, or .glb.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <nlohmann/json.hpp>

namespace tessera::gltf_testing {

constexpr int kByte = 5120, kUnsignedByte = 5121, kShort = 5122, kUnsignedShort = 5123, kUnsignedInt = 5125,
              kFloat = 5126;

inline std::string base64(const std::string& in) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
    out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], k[v & 63]};
  }
  if (i + 1 == in.size()) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    out += {k[v >> 18], k[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8;
    out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], '='};
  }
  return out;
}

class GltfWriter {
 public:
  nlohmann::json doc;
  std::string bin;

  GltfWriter() {
    doc["asset"] = {{"version", "2.0"}, {"generator", "tessera tests"}};
    for (const char* list :
         {"bufferViews", "accessors", "meshes", "nodes", "materials", "textures", "images", "samplers", "cameras"}) {
      doc[list] = nlohmann::json::array();
    }
  }

  // Appends raw bytes as a buffer view (4-byte aligned); returns its index.
  int view(const void* data, size_t bytes, int stride = 0) {
    while (bin.size() % 4) bin.push_back('\0');
    nlohmann::json v = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", bytes}};
    if (stride) v["byteStride"] = stride;
    bin.append(static_cast<const char*>(data), bytes);
    doc["bufferViews"].push_back(v);
    return int(doc["bufferViews"].size()) - 1;
  }
  int accessor(int view_index, int component_type, size_t count, const char* type, bool normalized = false,
               size_t byte_offset = 0) {
    nlohmann::json a = {
        {"bufferView", view_index}, {"componentType", component_type}, {"count", count}, {"type", type}};
    if (normalized) a["normalized"] = true;
    if (byte_offset) a["byteOffset"] = byte_offset;
    doc["accessors"].push_back(a);
    return int(doc["accessors"].size()) - 1;
  }
  template <typename T>
  int array(const std::vector<T>& values, int component_type, const char* type, bool normalized = false) {
    const int components = std::string(type) == "SCALAR" ? 1
                           : std::string(type) == "VEC2" ? 2
                           : std::string(type) == "VEC3" ? 3
                                                         : 4;
    return accessor(view(values.data(), values.size() * sizeof(T)), component_type, values.size() / size_t(components),
                    type, normalized);
  }
  int positions(const std::vector<glm::vec3>& p) {
    std::vector<float> f;
    glm::vec3 lo(1e30f), hi(-1e30f);
    for (const glm::vec3& v : p) {
      f.insert(f.end(), {v.x, v.y, v.z});
      lo = glm::min(lo, v);
      hi = glm::max(hi, v);
    }
    const int a = array(f, kFloat, "VEC3");
    doc["accessors"][size_t(a)]["min"] = {lo.x, lo.y, lo.z};
    doc["accessors"][size_t(a)]["max"] = {hi.x, hi.y, hi.z};
    return a;
  }
  int vec3s(const std::vector<glm::vec3>& p) {
    std::vector<float> f;
    for (const glm::vec3& v : p) f.insert(f.end(), {v.x, v.y, v.z});
    return array(f, kFloat, "VEC3");
  }
  int vec2s(const std::vector<glm::vec2>& p) {
    std::vector<float> f;
    for (const glm::vec2& v : p) f.insert(f.end(), {v.x, v.y});
    return array(f, kFloat, "VEC2");
  }
  int indices(const std::vector<uint32_t>& i, int component_type = kUnsignedInt) {
    if (component_type == kUnsignedByte)
      return array(std::vector<uint8_t>(i.begin(), i.end()), kUnsignedByte, "SCALAR");
    if (component_type == kUnsignedShort)
      return array(std::vector<uint16_t>(i.begin(), i.end()), kUnsignedShort, "SCALAR");
    return array(i, kUnsignedInt, "SCALAR");
  }
  // A mesh of one primitive; returns the mesh index.
  int mesh(const nlohmann::json& attributes, int indices_accessor = -1, int material = -1, int mode = -1) {
    nlohmann::json prim = {{"attributes", attributes}};
    if (indices_accessor >= 0) prim["indices"] = indices_accessor;
    if (material >= 0) prim["material"] = material;
    if (mode >= 0) prim["mode"] = mode;
    doc["meshes"].push_back({{"primitives", nlohmann::json::array({prim})}});
    return int(doc["meshes"].size()) - 1;
  }
  int node(const nlohmann::json& n) {
    doc["nodes"].push_back(n);
    return int(doc["nodes"].size()) - 1;
  }
  int material(const nlohmann::json& m) {
    doc["materials"].push_back(m);
    return int(doc["materials"].size()) - 1;
  }
  // An image stored in the buffer (PNG bytes); returns a texture index using `sampler` (-1 none).
  int texture_from_bytes(const std::string& png, int sampler = -1) {
    const int v = view(png.data(), png.size());
    doc["images"].push_back({{"bufferView", v}, {"mimeType", "image/png"}});
    nlohmann::json t = {{"source", int(doc["images"].size()) - 1}};
    if (sampler >= 0) t["sampler"] = sampler;
    doc["textures"].push_back(t);
    return int(doc["textures"].size()) - 1;
  }
  int texture_from_uri(const std::string& uri, int sampler = -1) {
    doc["images"].push_back({{"uri", uri}});
    nlohmann::json t = {{"source", int(doc["images"].size()) - 1}};
    if (sampler >= 0) t["sampler"] = sampler;
    doc["textures"].push_back(t);
    return int(doc["textures"].size()) - 1;
  }
  void scene(const std::vector<int>& roots) {
    doc["scenes"] = nlohmann::json::array({{{"nodes", roots}}});
    doc["scene"] = 0;
  }

  // .gltf text with the buffer as a data URI.
  std::string gltf_embedded() const {
    nlohmann::json d = doc;
    d["buffers"] = nlohmann::json::array(
        {{{"byteLength", bin.size()}, {"uri", "data:application/octet-stream;base64," + base64(bin)}}});
    return d.dump();
  }
  // .gltf text naming an external buffer file (written by the caller).
  std::string gltf_external(const std::string& bin_uri) const {
    nlohmann::json d = doc;
    d["buffers"] = nlohmann::json::array({{{"byteLength", bin.size()}, {"uri", bin_uri}}});
    return d.dump();
  }
  // A binary glTF: header, JSON chunk, BIN chunk.
  std::string glb() const {
    nlohmann::json d = doc;
    d["buffers"] = nlohmann::json::array({{{"byteLength", bin.size()}}});
    std::string json = d.dump();
    while (json.size() % 4) json.push_back(' ');
    std::string data = bin;
    while (data.size() % 4) data.push_back('\0');
    std::string out = "glTF";
    auto u32 = [&](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
    u32(2);
    u32(uint32_t(12 + 8 + json.size() + 8 + data.size()));
    u32(uint32_t(json.size()));
    u32(0x4E4F534A);
    out += json;
    u32(uint32_t(data.size()));
    u32(0x004E4942);
    out += data;
    return out;
  }
};

// A unit quad in the XY plane facing +Z (counter-clockwise seen from +Z), uvs (0,0) at the
// top-left corner; with normals when asked. Returns the mesh index.
inline int add_quad(GltfWriter& w, int material = -1, bool normals = true, float half = 0.5f) {
  const int pos = w.positions({{-half, -half, 0}, {half, -half, 0}, {half, half, 0}, {-half, half, 0}});
  nlohmann::json attributes = {{"POSITION", pos}, {"TEXCOORD_0", w.vec2s({{0, 1}, {1, 1}, {1, 0}, {0, 0}})}};
  if (normals) attributes["NORMAL"] = w.vec3s({{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}});
  return w.mesh(attributes, w.indices({0, 1, 2, 0, 2, 3}, kUnsignedShort), material);
}

}  // namespace tessera::gltf_testing
