// Wavefront OBJ loading: tinyobjloader parses and triangulates; Tessera merges all shapes into
// one indexed mesh. tinyobjloader quietly turns unparsable numbers into 0 and only warns about
// out-of-range indices, so a line-level check runs first and rejects what it would let by.
#include <tiny_obj_loader.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tessera/error.h"
#include "tessera/gltf.h"
#include "tessera/input_file.h"
#include "tessera/scene.h"

namespace tessera {

namespace {

[[noreturn]] void fail_at(const std::string& file, size_t line, const std::string& msg) {
  throw Error(file + ":" + std::to_string(line) + ": " + msg);
}

std::vector<std::string_view> split_whitespace(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

// A float the vertex stage can hold: parses completely and is finite as a float.
bool parse_finite(std::string_view token, double& value, bool& non_finite) {
  non_finite = false;
  if (!token.empty() && token[0] == '+') token.remove_prefix(1);
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec == std::errc::result_out_of_range) {
    non_finite = true;
    return false;
  }
  if (ec != std::errc() || end != token.data() + token.size()) return false;
  if (!std::isfinite(value) || std::fabs(value) > double(std::numeric_limits<float>::max())) {
    non_finite = true;
    return false;
  }
  return true;
}

bool parse_index(std::string_view token, int64_t& value) {
  if (token.empty()) return false;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && end == token.data() + token.size() && value != 0 && value > -(int64_t(1) << 31) &&
         value < (int64_t(1) << 31);
}

// Checks every vertex and face line. Numbers must parse and be finite; faces need 3+ corners
// whose indices refer to existing elements (negative indices count back from the elements
// read so far; positive ones may refer anywhere in the file).
void check_obj_text(std::string_view text, const std::string& file) {
  const char* kinds[3] = {"position", "uv", "normal"};
  int64_t counts[3] = {0, 0, 0};
  int64_t max_index[3] = {0, 0, 0};
  size_t max_index_line[3] = {0, 0, 0};
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::vector<std::string_view> tok = split_whitespace(line);
    if (tok.empty() || tok[0][0] == '#') continue;
    const std::string_view key = tok[0];

    if (key == "v" || key == "vt" || key == "vn") {
      const int kind = key == "v" ? 0 : (key == "vt" ? 1 : 2);
      const size_t n = tok.size() - 1;
      // v: x y z [w] or x y z r g b; vt: u [v [w]]; vn: x y z.
      const bool count_ok = kind == 0 ? (n >= 3 && n <= 7) : (kind == 1 ? (n >= 1 && n <= 3) : n == 3);
      if (!count_ok) {
        fail_at(file, line_no,
                std::string("malformed '") + std::string(key) + "' line (" + std::to_string(n) + " numbers)");
      }
      for (size_t i = 1; i < tok.size(); ++i) {
        double v = 0.0;
        bool non_finite = false;
        if (!parse_finite(tok[i], v, non_finite)) {
          fail_at(file, line_no,
                  std::string(non_finite ? "non-finite " : "malformed number in ") + kinds[kind] + " '" +
                      std::string(tok[i]) + "'");
        }
      }
      ++counts[kind];
    } else if (key == "f") {
      if (tok.size() < 4) {
        fail_at(file, line_no, "face with " + std::to_string(tok.size() - 1) + " corners (at least 3 needed)");
      }
      for (size_t i = 1; i < tok.size(); ++i) {
        // Corner forms: v, v/t, v//n, v/t/n.
        std::string_view parts[3];
        int nparts = 0;
        std::string_view rest = tok[i];
        bool too_many = false;
        while (true) {
          const size_t slash = rest.find('/');
          if (nparts == 3) {
            too_many = true;
            break;
          }
          parts[nparts++] = rest.substr(0, slash);
          if (slash == std::string_view::npos) break;
          rest.remove_prefix(slash + 1);
        }
        const bool shape_ok =
            !too_many && !parts[0].empty() && (nparts != 2 || !parts[1].empty()) && (nparts != 3 || !parts[2].empty());
        if (!shape_ok) fail_at(file, line_no, "malformed face corner '" + std::string(tok[i]) + "'");
        for (int p = 0; p < nparts; ++p) {
          if (parts[p].empty()) continue;  // v//n
          const int kind = p;              // position, uv, normal in corner order
          int64_t idx = 0;
          if (!parse_index(parts[p], idx)) {
            fail_at(file, line_no, "malformed index in face corner '" + std::string(tok[i]) + "'");
          }
          if (idx < 0) {
            if (-idx > counts[kind]) {
              fail_at(file, line_no,
                      "relative " + std::string(kinds[kind]) + " index " + std::to_string(idx) +
                          " reaches before the first " + kinds[kind]);
            }
          } else if (idx > max_index[kind]) {
            max_index[kind] = idx;
            max_index_line[kind] = line_no;
          }
        }
      }
    }
  }
  for (int kind = 0; kind < 3; ++kind) {
    if (max_index[kind] > counts[kind]) {
      fail_at(file, max_index_line[kind],
              std::string(kinds[kind]) + " index " + std::to_string(max_index[kind]) +
                  " is out of range (the file has " + std::to_string(counts[kind]) + " " + kinds[kind] + "s)");
    }
  }
}

// One output vertex per distinct (position, normal, uv) index triple.
struct CornerKey {
  int position, normal, uv;
  bool operator==(const CornerKey&) const = default;
};
struct CornerKeyHash {
  size_t operator()(const CornerKey& k) const {
    uint64_t h = uint64_t(uint32_t(k.position)) * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t(uint32_t(k.normal)) + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
    h ^= (uint64_t(uint32_t(k.uv)) + 0x8cb92ba72f3d8dd7ull) * 0x94d049bb133111ebull;
    return size_t(h ^ (h >> 31));
  }
};

// Reads the .mtl files an OBJ names through the same size-capped reader as every input
// (tinyobjloader's own reader would follow a path to a device or a huge file).
class CappedMaterialReader : public tinyobj::MaterialReader {
 public:
  explicit CappedMaterialReader(std::filesystem::path base) : base_(std::move(base)) {}
  bool operator()(const std::string& name, std::vector<tinyobj::material_t>* materials,
                  std::map<std::string, int>* material_map, std::string* warn, std::string* err) override {
    const std::filesystem::path path = (base_ / name).lexically_normal();
    std::string text;
    try {
      text = read_input_file(path, kMaxJsonFileBytes, "MTL");
    } catch (const Error& e) {
      if (warn) *warn += std::string(e.what()) + "\n";
      return false;
    }
    std::istringstream stream(text);
    tinyobj::LoadMtl(material_map, materials, &stream, warn, err);
    return true;
  }

 private:
  std::filesystem::path base_;
};

struct ObjParse {
  Mesh mesh;
  std::vector<int> triangle_material;  // per triangle, the face's material (-1 none)
  std::vector<tinyobj::material_t> materials;
  std::string warnings;
};

ObjParse parse_obj(const std::filesystem::path& path, bool read_materials);

}  // namespace

Mesh load_obj(const std::filesystem::path& path) { return parse_obj(path, false).mesh; }

namespace {

ObjParse parse_obj(const std::filesystem::path& path, bool read_materials) {
  const std::string file = path.string();
  const std::string text = read_input_file(path, kMaxObjFileBytes, "OBJ");

  check_obj_text(text, file);

  tinyobj::attrib_t attrib;
  std::vector<tinyobj::shape_t> shapes;
  std::vector<tinyobj::material_t> materials;
  std::string warn, err;
  std::istringstream obj_stream(text);
  // Meshes named by a scene take their material from the scene file: no material reader. A
  // model entry (or a bare OBJ rendered directly) reads its .mtl files.
  CappedMaterialReader material_reader(path.parent_path());
  if (!tinyobj::LoadObj(&attrib, &shapes, &materials, &warn, &err, &obj_stream,
                        read_materials ? &material_reader : nullptr,
                        /*triangulate=*/true)) {
    throw Error(file + ": cannot parse OBJ: " + (err.empty() ? warn : err));
  }

  const size_t num_positions = attrib.vertices.size() / 3;
  const size_t num_normals = attrib.normals.size() / 3;
  const size_t num_uvs = attrib.texcoords.size() / 2;

  ObjParse out;
  Mesh& mesh = out.mesh;
  mesh.name = path.stem().string();
  std::vector<int> position_of_vertex;  // source position index of each output vertex
  std::unordered_map<CornerKey, uint32_t, CornerKeyHash> vertex_of_corner;

  auto corner = [&](const tinyobj::index_t& idx) -> uint32_t {
    if (idx.vertex_index < 0 || size_t(idx.vertex_index) >= num_positions ||
        size_t(idx.normal_index + 1) > num_normals || size_t(idx.texcoord_index + 1) > num_uvs) {
      throw Error(file + ": face index out of range");
    }
    const CornerKey key{idx.vertex_index, idx.normal_index, idx.texcoord_index};
    auto [it, inserted] = vertex_of_corner.try_emplace(key, uint32_t(mesh.vertices.size()));
    if (inserted) {
      if (mesh.vertices.size() >= size_t(std::numeric_limits<uint32_t>::max())) {
        throw Error(file + ": too many vertices for 32-bit indices");
      }
      Vertex v{};
      const float* p = &attrib.vertices[size_t(key.position) * 3];
      v.position = glm::vec3(p[0], p[1], p[2]);
      if (key.normal >= 0) {
        const float* n = &attrib.normals[size_t(key.normal) * 3];
        v.normal = glm::vec3(n[0], n[1], n[2]);
      }
      if (key.uv >= 0) {
        const float* t = &attrib.texcoords[size_t(key.uv) * 2];
        v.uv = glm::vec2(t[0], t[1]);
      }
      mesh.vertices.push_back(v);
      position_of_vertex.push_back(key.position);
    }
    return it->second;
  };

  for (const tinyobj::shape_t& shape : shapes) {
    size_t offset = 0;
    for (size_t f = 0; f < shape.mesh.num_face_vertices.size(); ++f) {
      const unsigned char fv = shape.mesh.num_face_vertices[f];
      if (offset + fv > shape.mesh.indices.size()) throw Error(file + ": truncated face list");
      const int material = f < shape.mesh.material_ids.size() ? shape.mesh.material_ids[f] : -1;
      // Triangulation already happened; a fan keeps any face it left whole.
      for (size_t k = 1; k + 1 < fv; ++k) {
        const uint32_t a = corner(shape.mesh.indices[offset]);
        const uint32_t b = corner(shape.mesh.indices[offset + k]);
        const uint32_t c = corner(shape.mesh.indices[offset + k + 1]);
        mesh.indices.insert(mesh.indices.end(), {a, b, c});
        if (read_materials) {
          out.triangle_material.push_back(material >= 0 && size_t(material) < materials.size() ? material : -1);
        }
      }
      offset += fv;
    }
  }
  if (mesh.indices.empty()) throw Error(file + ": OBJ file has no triangles");
  // A file of only zero-area faces draws nothing, like a file without faces: both are refused,
  // whatever the faces' corner counts. Degenerate faces beside real ones are kept (the
  // rasterizer culls them), as are polygons of any length.
  bool any_area = false;
  for (size_t t = 0; t < mesh.indices.size() && !any_area; t += 3) {
    const glm::vec3 p0 = mesh.vertices[mesh.indices[t]].position;
    const glm::vec3 e1 = mesh.vertices[mesh.indices[t + 1]].position - p0;
    const glm::vec3 e2 = mesh.vertices[mesh.indices[t + 2]].position - p0;
    any_area = glm::cross(e1, e2) != glm::vec3(0.0f);
  }
  if (!any_area) {
    throw Error(file + ": OBJ file has no triangles with area (all " + std::to_string(mesh.triangle_count()) +
                " are degenerate)");
  }

  // Smooth normals for corners the file gave none (or a zero one): the sum of the cross
  // products of the triangles around each position is their area-weighted average direction.
  // Summed per position, not per output vertex, so uv seams do not split the shading.
  bool need_smooth = false;
  for (Vertex& v : mesh.vertices) {
    const float len = glm::length(v.normal);
    if (len > 0.0f && std::isfinite(len)) {
      v.normal /= len;
    } else {
      v.normal = glm::vec3(0.0f);
      need_smooth = true;
    }
  }
  if (need_smooth) {
    std::vector<glm::vec3> accumulated(num_positions, glm::vec3(0.0f));
    for (size_t t = 0; t < mesh.indices.size(); t += 3) {
      const uint32_t i0 = mesh.indices[t], i1 = mesh.indices[t + 1], i2 = mesh.indices[t + 2];
      const glm::vec3 p0 = mesh.vertices[i0].position;
      const glm::vec3 n = glm::cross(mesh.vertices[i1].position - p0, mesh.vertices[i2].position - p0);
      for (const uint32_t i : {i0, i1, i2}) accumulated[size_t(position_of_vertex[i])] += n;
    }
    for (size_t i = 0; i < mesh.vertices.size(); ++i) {
      Vertex& v = mesh.vertices[i];
      if (v.normal != glm::vec3(0.0f)) continue;
      const glm::vec3 n = accumulated[size_t(position_of_vertex[i])];
      const float len = glm::length(n);
      // Only degenerate triangles touch this position: any unit vector is as good as another.
      v.normal = (len > 0.0f && std::isfinite(len)) ? n / len : glm::vec3(0.0f, 1.0f, 0.0f);
    }
  }
  compute_bounds(mesh);
  out.materials = std::move(materials);
  out.warnings = warn;
  return out;
}

}  // namespace

}  // namespace tessera

namespace tessera {

namespace {

float clamp_unit(float v) { return std::isfinite(v) ? std::clamp(v, 0.0f, 1.0f) : 0.0f; }

// map_d as an alpha channel: its own alpha where the image has any, else its red channel
// (a grey mask), resampled (nearest) to the colour texture's size.
void put_alpha(Image& color, const Image& mask) {
  bool has_alpha = false;
  for (const Rgba8 p : mask.pixels) has_alpha = has_alpha || channel(p, 3) != 255;
  for (int y = 0; y < color.height; ++y) {
    for (int x = 0; x < color.width; ++x) {
      const Rgba8 m = mask.at(int(int64_t(x) * mask.width / color.width), int(int64_t(y) * mask.height / color.height));
      const uint8_t a = has_alpha ? channel(m, 3) : channel(m, 0);
      Rgba8& c = color.at(x, y);
      c = (c & 0x00FFFFFFu) | (uint32_t(a) << 24);
    }
  }
}

}  // namespace

ModelContent load_obj_model(const std::filesystem::path& path, const glm::mat4& placement) {
  ObjParse parsed = parse_obj(path, true);
  ModelContent out;
  const std::string file = path.string();
  for (size_t pos = 0; pos < parsed.warnings.size();) {
    size_t eol = parsed.warnings.find('\n', pos);
    if (eol == std::string::npos) eol = parsed.warnings.size();
    if (eol > pos) out.report.warnings.push_back(file + ": " + parsed.warnings.substr(pos, eol - pos));
    pos = eol + 1;
  }
  // Materials: Kd, Ks, Ns, d (Tr is read as d = 1 - Tr), map_Kd and map_d (docs/scene-format.md).
  std::map<std::string, int> texture_of;
  auto load_image = [&](const std::string& name, const std::string& key, const std::string& material) {
    const std::filesystem::path p = (path.parent_path() / name).lexically_normal();
    try {
      return read_image(p);
    } catch (const Error& e) {
      throw Error(file + ": material '" + material + "' " + key + ": " + e.what());
    }
  };
  for (const tinyobj::material_t& m : parsed.materials) {
    Material mat;
    mat.name = m.name;
    mat.base_color = glm::vec3(clamp_unit(m.diffuse[0]), clamp_unit(m.diffuse[1]), clamp_unit(m.diffuse[2]));
    mat.specular = glm::vec3(clamp_unit(m.specular[0]), clamp_unit(m.specular[1]), clamp_unit(m.specular[2]));
    mat.shininess = std::isfinite(m.shininess) ? std::clamp(m.shininess, kMinShininess, kMaxShininess) : 32.0f;
    mat.base_alpha = clamp_unit(m.dissolve);
    if (mat.base_alpha < 1.0f) mat.alpha_mode = AlphaMode::blend;
    if (!m.diffuse_texname.empty() || !m.alpha_texname.empty()) {
      const std::string key = m.diffuse_texname + "|" + m.alpha_texname;
      if (const auto it = texture_of.find(key); it != texture_of.end()) {
        mat.texture = it->second;
      } else {
        Image base;
        if (!m.diffuse_texname.empty()) base = load_image(m.diffuse_texname, "map_Kd", m.name);
        if (!m.alpha_texname.empty()) {
          const Image mask = load_image(m.alpha_texname, "map_d", m.name);
          if (base.width == 0) base = Image(mask.width, mask.height, pack_rgba8(255, 255, 255));
          put_alpha(base, mask);
        }
        mat.texture = int(out.textures.size());
        texture_of[key] = mat.texture;
        out.textures.push_back(make_texture(key, std::move(base)));
      }
    }
    // A dissolve map cuts out (leaves, fences): alpha test rather than blending.
    if (!m.alpha_texname.empty()) mat.alpha_mode = AlphaMode::mask;
    out.materials.push_back(mat);
  }
  // One mesh per material used, in order of first use; faces without one get the default.
  const Mesh& merged = parsed.mesh;
  std::map<int, size_t> mesh_of;
  std::vector<int> order;
  for (const int m : parsed.triangle_material) {
    if (mesh_of.emplace(m, order.size()).second) order.push_back(m);
  }
  std::vector<std::vector<uint32_t>> remap(order.size(), std::vector<uint32_t>(merged.vertices.size(), UINT32_MAX));
  std::vector<Mesh> meshes(order.size());
  for (size_t t = 0; t < parsed.triangle_material.size(); ++t) {
    const size_t k = mesh_of[parsed.triangle_material[t]];
    Mesh& mesh = meshes[k];
    for (int c = 0; c < 3; ++c) {
      const uint32_t v = merged.indices[t * 3 + size_t(c)];
      if (remap[k][v] == UINT32_MAX) {
        remap[k][v] = uint32_t(mesh.vertices.size());
        mesh.vertices.push_back(merged.vertices[v]);
      }
      mesh.indices.push_back(remap[k][v]);
    }
  }
  int default_material = -1;
  for (size_t k = 0; k < order.size(); ++k) {
    Mesh& mesh = meshes[k];
    mesh.name = merged.name + "/" + (order[k] >= 0 ? parsed.materials[size_t(order[k])].name : "default");
    compute_bounds(mesh);
    Instance inst;
    inst.mesh = uint32_t(out.meshes.size());
    if (order[k] >= 0) {
      inst.material = uint32_t(order[k]);
    } else {
      if (default_material < 0) {
        default_material = int(out.materials.size());
        Material def;
        def.name = "OBJ default material";
        out.materials.push_back(def);
      }
      inst.material = uint32_t(default_material);
    }
    inst.transform = placement;
    out.report.triangles += mesh.triangle_count();
    out.report.vertices += mesh.vertices.size();
    out.report.mesh_bytes += mesh.vertices.size() * sizeof(Vertex) + mesh.indices.size() * sizeof(uint32_t);
    out.meshes.push_back(std::move(mesh));
    out.instances.push_back(inst);
  }
  for (const Texture& t : out.textures) {
    for (const Image& level : t.levels) out.report.texture_bytes += level.pixels.size() * sizeof(Rgba8);
  }
  out.report.images_decoded = out.textures.size();
  return out;
}

}  // namespace tessera
