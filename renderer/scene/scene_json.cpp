// The scene JSON format (docs/scene-format.md): strict reading, name references, generators.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <glm/gtc/matrix_transform.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <unordered_map>

#include "core/strict_json.h"
#include "tessera/error.h"
#include "tessera/gltf.h"
#include "tessera/input_file.h"
#include "tessera/lod.h"
#include "tessera/procedural.h"
#include "tessera/scene.h"

namespace tessera {

namespace {

using strict_json::as_array;
using strict_json::join;
using strict_json::Json;
using strict_json::ObjectReader;
using strict_json::Range;
using strict_json::Where;

// Bounds that separate plausible scenes from absurd input: world coordinates and sizes in
// world units, colours in linear RGB.
constexpr double kMaxCoordinate = 1e6;
const Range kCoordinate{-kMaxCoordinate, kMaxCoordinate};
const Range kSize{0.0, kMaxCoordinate, true};
const Range kUnit{0.0, 1.0};
const Range kUvScale{0.0, 1e4, true};
const Range kIntensity{0.0, 1e6};
constexpr int64_t kMaxResolution = kMaxGeneratorResolution;
// Triangles stored over all meshes (instancing does not count): two meshes at the largest
// generator resolution, about 2 GiB of vertices and indices. Beyond that a scene file is far
// more likely a typo than a plan, and failing early beats running out of memory.
constexpr uint64_t kMaxStoredTriangles = uint64_t(1) << 26;

// An optional string key naming one of a closed set of choices; an unknown name fails listing
// the choices, e.g. `unknown mode "x" (expected constant, distance, edge_length)`.
template <typename E>
E read_choice(ObjectReader& r, const char* key, E fallback, const char* what,
              std::initializer_list<std::pair<const char*, E>> choices) {
  const auto name = r.optional_string(key);
  if (!name) return fallback;
  std::string expected;
  for (const auto& [n, value] : choices) {
    if (*name == n) return value;
    expected += (expected.empty() ? "" : ", ") + std::string(n);
  }
  r.at(key).fail(std::string("unknown ") + what + " \"" + *name + "\" (expected " + expected + ")");
}

// The terrain generator's keys (shared by the "terrain" mesh and the "patch_terrain" patch mesh).
TerrainParams read_terrain_params(ObjectReader& r) {
  TerrainParams p;
  p.size = r.number("size", p.size, kSize);
  p.resolution = r.integer("resolution", p.resolution, 1, kMaxResolution);
  p.height = r.number("height", p.height, {0.0, 1e5});
  p.seed = r.seed("seed", p.seed);
  p.uv_scale = r.number("uv_scale", p.uv_scale, kUvScale);
  p.octaves = r.integer("octaves", p.octaves, 1, 12);
  p.frequency = r.number("frequency", p.frequency, {0.0, 1e4, true});
  p.flat_radius = r.number("flat_radius", p.flat_radius, {0.0, kMaxCoordinate});
  return p;
}

// Names declared in one list ("meshes", "textures", "materials") and the index of each.
class NameTable {
 public:
  explicit NameTable(const char* list) : list_(list) {}

  void add(const std::string& name, size_t index, const Where& where) {
    if (name.empty()) where.fail("name must not be empty");
    const auto [it, inserted] = index_.try_emplace(name, uint32_t(index));
    if (!inserted) {
      where.fail("duplicate name \"" + name + "\" (first used by " + join(list_, size_t(it->second)) + ")");
    }
    order_.push_back(name);
  }

  bool contains(const std::string& name) const { return index_.count(name) != 0; }

  uint32_t lookup(const std::string& name, const Where& where, const char* kind) const {
    const auto it = index_.find(name);
    if (it != index_.end()) return it->second;
    std::string known;
    for (size_t i = 0; i < order_.size() && i < 12; ++i) known += (i ? ", " : "") + order_[i];
    if (order_.size() > 12) known += ", ...";
    where.fail(std::string("unknown ") + kind + " \"" + name + "\"" +
               (known.empty() ? std::string(" (none declared)") : " (declared: " + known + ")"));
  }

 private:
  const char* list_;
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<std::string> order_;
};

// Reads the document; `base` is the folder relative paths resolve against.
class SceneReader {
 public:
  SceneReader(const std::filesystem::path& path, const std::string& file) : base_(path.parent_path()), file_(file) {}

  Scene read(const Json& doc);

 private:
  std::filesystem::path resolve(const std::string& relative) const {
    const std::filesystem::path p(relative);
    return (p.is_absolute() ? p : base_ / p).lexically_normal();
  }

  // Runs a generator or loader, putting the JSON path in front of any error it raises.
  template <typename F>
  auto at_path(const Where& where, F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const Error& e) {
      where.fail(e.what());
    }
  }

  // Meshes are read in two steps: every description is checked (and its triangle count
  // charged to the budget) before any is built, so an absurd scene fails in milliseconds.
  using MeshBuilder = std::function<Mesh()>;
  MeshBuilder read_mesh(const Json& j, const std::string& path, size_t index);
  MeshBuilder read_generated_mesh(ObjectReader& r, const std::string& generator);
  Texture read_texture(const Json& j, const std::string& path, size_t index);
  Image read_generated_image(ObjectReader& r, const std::string& generator);
  Material read_material(const Json& j, const std::string& path, size_t index);
  Instance read_instance(const Json& j, const std::string& path, bool& patch);
  LodGroup read_lod_group(const Json& j, const std::string& path, size_t index, std::vector<Mesh>& meshes);
  PatchMesh read_patch_mesh(const Json& j, const std::string& path, size_t index, const std::vector<Mesh>& meshes);
  TessellationSettings read_tessellation(const Json& j, const std::string& path);
  std::vector<Instance> read_grid(const Json& j, const std::string& path, const std::vector<Mesh>& meshes);
  Light read_light(const Json& j, const std::string& path);
  Camera read_camera(const Json& j, const std::string& path, bool allow_name);
  glm::mat4 read_placement(ObjectReader& r, const std::string& path);
  void read_model(const Json& j, const std::string& path, Scene& scene);

  // Counts triangles a mesh will store, failing at `where` past kMaxStoredTriangles or when
  // the meshes alone would exceed the memory budget. Runs before any mesh is built: the
  // triangle cap alone allows meshes of several GB, past a small --memory-limit.
  void reserve_triangles(uint64_t triangles, const Where& where) {
    stored_triangles_ += triangles;
    if (stored_triangles_ > kMaxStoredTriangles) {
      where.fail("the scene's meshes would store " + std::to_string(stored_triangles_) +
                 " triangles, more than the limit of " + std::to_string(kMaxStoredTriangles));
    }
    // A lower bound of what they store: three indices a triangle and, as on the generators'
    // grids, a vertex for every two triangles. Replaced by the built meshes' sizes afterwards.
    const uint64_t planned = stored_triangles_ * (3 * sizeof(uint32_t) + sizeof(Vertex) / 2);
    check_memory(where, nullptr, 0, planned);
  }

  // Fails at `where` when the estimate plus `extra` instances of `mesh` (plus `planned_bytes`
  // of meshes not built yet) is past the budget.
  void check_memory(const Where& where, const Mesh* mesh = nullptr, uint64_t extra = 0,
                    uint64_t planned_bytes = 0) const {
    SceneMemoryEstimate e = estimate_;
    e.stored_bytes += planned_bytes;
    if (mesh) add_instances_to_estimate(e, *mesh, extra);
    const uint64_t limit = memory_limit();
    if (e.total() <= limit) return;
    auto gib = [](uint64_t bytes) {
      char text[32];
      const bool large = bytes >= (uint64_t(1) << 30);
      std::snprintf(text, sizeof(text), large ? "%.1f GiB" : "%.1f MiB",
                    double(bytes) / double(large ? 1 << 30 : 1 << 20));
      return std::string(text);
    };
    std::string what = mesh ? std::to_string(extra) + " instances of a mesh of " +
                                  std::to_string(mesh->vertices.size()) + " vertices and " +
                                  std::to_string(mesh->triangle_count()) + " triangles: "
                            : std::string();
    where.fail(what + "the scene would need about " + gib(e.total()) + " of memory to load and render, more than the " +
               "limit of " + gib(limit) + " (--memory-limit; docs/scene-format.md, \"Memory budget\")");
  }

  std::filesystem::path base_;
  const std::string& file_;
  SceneMemoryEstimate estimate_;
  uint64_t stored_triangles_ = 0;
  NameTable meshes_{"meshes"};
  NameTable patch_meshes_{"patch_meshes"};
  uint64_t patches_ = 0;
  NameTable textures_{"textures"};
  NameTable materials_{"materials"};
  NameTable lod_groups_{"lod_groups"};
  std::vector<uint32_t> lod_finest_;  // finest mesh of each LOD group
  // Coarsest mesh of each LOD group: what the memory estimate charges an LOD instance, as the
  // level a field of them mostly draws (the finest is for the few near the camera).
  std::vector<uint32_t> lod_coarsest_;
};

SceneReader::MeshBuilder SceneReader::read_mesh(const Json& j, const std::string& path, size_t index) {
  ObjectReader r(j, file_, path);
  const std::string name = r.string("name");
  meshes_.add(name, index, r.at("name"));
  const bool has_obj = r.has("obj");
  const bool has_generator = r.has("generator");
  if (has_obj == has_generator) r.here().fail("needs exactly one of \"obj\" or \"generator\"");
  MeshBuilder build;
  if (has_obj) {
    const std::string obj = r.string("obj");
    if (obj.empty()) r.at("obj").fail("path must not be empty");
    build = [this, where = r.at("obj"), file = resolve(obj)] {
      Mesh mesh = at_path(where, [&] { return load_obj(file); });
      reserve_triangles(mesh.triangle_count(), where);
      return mesh;
    };
  } else {
    build = read_generated_mesh(r, r.string("generator"));
  }
  r.finish();
  return [name, build = std::move(build)] {
    Mesh mesh = build();
    mesh.name = name;
    return mesh;
  };
}

SceneReader::MeshBuilder SceneReader::read_generated_mesh(ObjectReader& r, const std::string& generator) {
  const Where where = r.at("generator");
  if (generator == "terrain") {
    const TerrainParams p = read_terrain_params(r);
    r.finish();
    reserve_triangles(2 * uint64_t(p.resolution) * uint64_t(p.resolution), where);
    return [this, where, p] { return at_path(where, [&] { return make_terrain(p); }); };
  }
  if (generator == "sphere") {
    const float radius = r.number("radius", 1.0f, kSize);
    const int segments = r.integer("segments", 32, 3, kMaxResolution);
    const int rings = r.integer("rings", 16, 2, kMaxResolution);
    r.finish();
    reserve_triangles(2 * uint64_t(segments) * uint64_t(rings - 1), where);
    return [this, where, radius, segments, rings] {
      return at_path(where, [&] { return make_sphere(radius, segments, rings); });
    };
  }
  if (generator == "box") {
    const glm::vec3 size = r.vec3_or_scalar("size", glm::vec3(1.0f), kSize);
    r.finish();
    reserve_triangles(12, where);
    return [this, where, size] { return at_path(where, [&] { return make_box(size); }); };
  }
  if (generator == "plane") {
    const glm::vec2 size = r.vec2_or_scalar("size", glm::vec2(1.0f), kSize);
    const glm::ivec2 cells = r.ivec2_or_scalar("cells", glm::ivec2(1), 1, kMaxResolution);
    const float uv_scale = r.number("uv_scale", 1.0f, kUvScale);
    r.finish();
    reserve_triangles(2 * uint64_t(cells.x) * uint64_t(cells.y), where);
    return [this, where, size, cells, uv_scale] {
      return at_path(where, [&] { return make_plane(size, cells, uv_scale); });
    };
  }
  if (generator == "torus") {
    const float major = r.number("major_radius", 1.0f, kSize);
    const float minor = r.number("minor_radius", 0.25f, kSize);
    const int major_segments = r.integer("major_segments", 48, 3, kMaxResolution);
    const int minor_segments = r.integer("minor_segments", 24, 3, kMaxResolution);
    r.finish();
    reserve_triangles(2 * uint64_t(major_segments) * uint64_t(minor_segments), where);
    return [this, where, major, minor, major_segments, minor_segments] {
      return at_path(where, [&] { return make_torus(major, minor, major_segments, minor_segments); });
    };
  }
  where.fail("unknown generator \"" + generator + "\" (expected terrain, sphere, box, plane, torus)");
}

Texture SceneReader::read_texture(const Json& j, const std::string& path, size_t index) {
  ObjectReader r(j, file_, path);
  const std::string name = r.string("name");
  textures_.add(name, index, r.at("name"));
  const bool has_path = r.has("path");
  const bool has_generator = r.has("generator");
  if (has_path == has_generator) r.here().fail("needs exactly one of \"path\" or \"generator\"");
  Texture tex;
  if (has_path) {
    const std::string image = r.string("path");
    if (image.empty()) r.at("path").fail("path must not be empty");
    tex = at_path(r.at("path"), [&] { return load_texture(resolve(image)); });
  } else {
    const std::string generator = r.string("generator");
    Image base = read_generated_image(r, generator);
    tex = make_texture(name, std::move(base));
  }
  r.finish();
  tex.name = name;
  return tex;
}

Image SceneReader::read_generated_image(ObjectReader& r, const std::string& generator) {
  const Where where = r.at("generator");
  if (generator == "checker") {
    CheckerParams p;
    p.size = r.integer("size", p.size, 1, kMaxTextureSize);
    p.cells = r.integer("cells", p.cells, 1, p.size);
    p.color_a = r.vec3("color_a", p.color_a, kUnit);
    p.color_b = r.vec3("color_b", p.color_b, kUnit);
    r.finish();
    return at_path(where, [&] { return make_checker_image(p); });
  }
  if (generator == "bricks") {
    BricksParams p;
    p.size = r.integer("size", p.size, 4, kMaxTextureSize);
    p.rows = r.integer("rows", p.rows, 1, p.size / 2);
    p.columns = r.integer("columns", p.columns, 1, p.size / 2);
    p.mortar = r.number("mortar", p.mortar, {0.0, 0.5});
    p.brick_color = r.vec3("brick_color", p.brick_color, kUnit);
    p.mortar_color = r.vec3("mortar_color", p.mortar_color, kUnit);
    p.variation = r.number("variation", p.variation, kUnit);
    p.seed = r.seed("seed", p.seed);
    r.finish();
    return at_path(where, [&] { return make_bricks_image(p); });
  }
  if (generator == "noise") {
    NoiseTextureParams p;
    p.size = r.integer("size", p.size, 1, kMaxTextureSize);
    p.frequency = r.integer("frequency", p.frequency, 1, 1024);
    p.octaves = r.integer("octaves", p.octaves, 1, 12);
    p.color_a = r.vec3("color_a", p.color_a, kUnit);
    p.color_b = r.vec3("color_b", p.color_b, kUnit);
    p.seed = r.seed("seed", p.seed);
    r.finish();
    return at_path(where, [&] { return make_noise_image(p); });
  }
  where.fail("unknown generator \"" + generator + "\" (expected checker, bricks, noise)");
}

Material SceneReader::read_material(const Json& j, const std::string& path, size_t index) {
  ObjectReader r(j, file_, path);
  Material m;
  m.name = r.string("name");
  materials_.add(m.name, index, r.at("name"));
  m.base_color = r.vec3("base_color", m.base_color, kUnit);
  if (const auto tex = r.optional_string("texture")) {
    m.texture = int(textures_.lookup(*tex, r.at("texture"), "texture"));
  }
  m.specular = r.vec3("specular", m.specular, kUnit);
  m.shininess = r.number("shininess", m.shininess, {kMinShininess, kMaxShininess});
  m.reflectivity = r.number("reflectivity", m.reflectivity, {0.0, 1.0});
  m.base_alpha = r.number("alpha", m.base_alpha, kUnit);
  m.alpha_mode = read_choice(r, "alpha_mode", m.alpha_mode, "alpha mode",
                             {{"opaque", AlphaMode::opaque}, {"mask", AlphaMode::mask}, {"blend", AlphaMode::blend}});
  m.alpha_cutoff = r.number("alpha_cutoff", m.alpha_cutoff, kUnit);
  m.double_sided = r.boolean("double_sided", m.double_sided);
  m.emissive = r.vec3("emissive", m.emissive, kUnit);
  r.finish();
  return m;
}

// Object-to-world matrix from translate, rotate_degrees (X, then Y, then Z, about the object
// origin) and scale: M = T * Rz * Ry * Rx * S.
glm::mat4 read_transform(ObjectReader& r) {
  const glm::vec3 translate = r.vec3("translate", glm::vec3(0.0f), kCoordinate);
  const glm::vec3 degrees = r.vec3("rotate_degrees", glm::vec3(0.0f), {-36000.0, 36000.0});
  const glm::vec3 scale = r.vec3_or_scalar("scale", glm::vec3(1.0f), kSize);
  r.finish();
  glm::mat4 m = glm::translate(glm::mat4(1.0f), translate);
  m = glm::rotate(m, glm::radians(degrees.z), glm::vec3(0, 0, 1));
  m = glm::rotate(m, glm::radians(degrees.y), glm::vec3(0, 1, 0));
  m = glm::rotate(m, glm::radians(degrees.x), glm::vec3(1, 0, 0));
  return glm::scale(m, scale);
}

// Patches a scene may hold over all patch meshes: each can tessellate into up to 8,192
// triangles per frame, so this bounds a frame near 8 billion triangles' worth of budget checks
// rather than memory; beyond it a file is far more likely a typo.
constexpr uint64_t kMaxScenePatches = uint64_t(1) << 20;

TessellationSettings SceneReader::read_tessellation(const Json& j, const std::string& path) {
  ObjectReader r(j, file_, path);
  TessellationSettings t;
  t.mode = read_choice(r, "mode", t.mode, "mode",
                       {{"constant", TessFactorMode::constant},
                        {"distance", TessFactorMode::distance},
                        {"edge_length", TessFactorMode::edge_length}});
  t.spacing = read_choice(r, "spacing", t.spacing, "spacing",
                          {{"equal", TessSpacing::kEqual},
                           {"fractional_odd", TessSpacing::kFractionalOdd},
                           {"fractional_even", TessSpacing::kFractionalEven}});
  t.level = r.number("level", t.level, {1.0, double(kMaxTessLevel)});
  t.reference_distance = r.number("reference_distance", t.reference_distance, {0.0, kMaxCoordinate, true});
  t.edge_pixels = r.number("edge_pixels", t.edge_pixels, {0.25, 4096.0});
  t.cull = r.boolean("cull", t.cull);
  r.finish();
  return t;
}

PatchMesh SceneReader::read_patch_mesh(const Json& j, const std::string& path, size_t index,
                                       const std::vector<Mesh>& meshes) {
  ObjectReader r(j, file_, path);
  const std::string name = r.string("name");
  if (meshes_.contains(name)) r.at("name").fail("\"" + name + "\" is already a mesh name");
  patch_meshes_.add(name, index, r.at("name"));
  const bool has_pn = r.has("pn_triangles");
  const bool has_generator = r.has("generator");
  if (has_pn == has_generator) r.here().fail("needs exactly one of \"pn_triangles\" or \"generator\"");
  PatchMesh mesh;
  TessellationSettings tess;
  if (const Json* t = r.find("tessellation")) tess = read_tessellation(*t, join(path, "tessellation"));
  if (has_pn) {
    const uint32_t source = meshes_.lookup(r.string("pn_triangles"), r.at("pn_triangles"), "mesh");
    r.finish();
    patches_ += meshes[source].triangle_count();
    if (patches_ > kMaxScenePatches)
      r.at("pn_triangles").fail("the scene would hold more than " + std::to_string(kMaxScenePatches) + " patches");
    mesh = make_pn_triangles(meshes[source]);
  } else {
    const Where where = r.at("generator");
    const std::string generator = r.string("generator");
    if (generator == "bezier_grid") {
      BezierGridParams p;
      p.size = r.number("size", p.size, kSize);
      p.patches = r.integer("patches", p.patches, 1, 256);
      p.height = r.number("height", p.height, {0.0, 1e5});
      p.seed = r.seed("seed", p.seed);
      p.uv_scale = r.number("uv_scale", p.uv_scale, kUvScale);
      r.finish();
      patches_ += uint64_t(p.patches) * uint64_t(p.patches);
      if (patches_ > kMaxScenePatches)
        where.fail("the scene would hold more than " + std::to_string(kMaxScenePatches) + " patches");
      mesh = at_path(where, [&] { return make_bezier_grid(p); });
    } else if (generator == "patch_terrain") {
      const TerrainParams p = read_terrain_params(r);
      const int patches = r.integer("patches", 16, 1, 256);
      r.finish();
      patches_ += uint64_t(patches) * uint64_t(patches);
      if (patches_ > kMaxScenePatches)
        where.fail("the scene would hold more than " + std::to_string(kMaxScenePatches) + " patches");
      mesh = at_path(where, [&] { return make_patch_terrain(p, patches); });
    } else {
      where.fail("unknown patch generator \"" + generator + "\" (expected bezier_grid, patch_terrain)");
    }
  }
  mesh.name = name;
  mesh.tessellation = tess;
  return mesh;
}

Instance SceneReader::read_instance(const Json& j, const std::string& path, bool& patch) {
  ObjectReader r(j, file_, path);
  Instance inst;
  if (r.has("mesh") == r.has("lod_group")) r.here().fail("needs exactly one of \"mesh\" or \"lod_group\"");
  if (r.has("lod_group")) {
    patch = false;
    inst.lod_group = int32_t(lod_groups_.lookup(r.string("lod_group"), r.at("lod_group"), "LOD group"));
    inst.mesh = lod_finest_[size_t(inst.lod_group)];
  } else {
    const std::string mesh = r.string("mesh");
    patch = patch_meshes_.contains(mesh);
    inst.mesh =
        patch ? patch_meshes_.lookup(mesh, r.at("mesh"), "patch mesh") : meshes_.lookup(mesh, r.at("mesh"), "mesh");
  }
  inst.material = materials_.lookup(r.string("material"), r.at("material"), "material");
  inst.transform = read_placement(r, path);
  r.finish();
  return inst;
}

// The optional "transform" or "matrix" of an instance or a model entry.
glm::mat4 SceneReader::read_placement(ObjectReader& r, const std::string& path) {
  glm::mat4 m(1.0f);
  if (r.has("transform") && r.has("matrix")) {
    r.here().fail("give either \"transform\" or \"matrix\", not both");
  }
  if (const Json* t = r.find("transform")) {
    ObjectReader tr(*t, file_, join(path, "transform"));
    m = read_transform(tr);
  }
  if (const Json* mj = r.find("matrix")) {
    const Where where = r.at("matrix");
    const auto& values = as_array(*mj, where);
    if (values.size() != 16) where.fail("expected an array of 16 numbers (column-major)");
    for (size_t i = 0; i < 16; ++i) {
      m[int(i / 4)][int(i % 4)] = float(strict_json::as_number(values[i], {file_, join(where.path, i)}, {-1e7, 1e7}));
    }
    if (!(std::fabs(glm::determinant(glm::mat3(m))) > 1e-30f)) {
      where.fail("matrix is singular (its 3x3 part has no inverse, so normals are undefined)");
    }
  }
  return m;
}

// A glTF model placed in the scene (docs/scene-format.md, "Models"): its meshes, textures,
// materials, instances, lights and cameras join the scene's.
void SceneReader::read_model(const Json& j, const std::string& path, Scene& scene) {
  ObjectReader r(j, file_, path);
  if (r.has("gltf") == r.has("obj")) r.here().fail("needs exactly one of \"gltf\" or \"obj\"");
  const char* key = r.has("gltf") ? "gltf" : "obj";
  const std::string file = r.string(key);
  if (file.empty()) r.at(key).fail("path must not be empty");
  const glm::mat4 placement = read_placement(r, path);
  r.finish();
  const Where where = r.at(key);
  ModelContent content = at_path(where, [&] {
    return r.has("gltf") ? load_gltf(resolve(file), placement) : load_obj_model(resolve(file), placement);
  });
  for (const std::string& w : content.report.warnings)
    std::fprintf(stderr, "warning: %s: %s\n", file_.c_str(), w.c_str());
  reserve_triangles(content.report.triangles, where);
  estimate_.stored_bytes += content.report.mesh_bytes + content.report.texture_bytes;
  for (const Instance& inst : content.instances) add_instances_to_estimate(estimate_, content.meshes[inst.mesh], 1);
  check_memory(where);
  at_path(where, [&] { append_model(scene, std::move(content), "lights"); });
}

// An LOD group names its levels (meshes, finest first) or generates them from one mesh with
// the simplifier; ranges are the distances where each level stops, near to far.
LodGroup SceneReader::read_lod_group(const Json& j, const std::string& path, size_t index, std::vector<Mesh>& meshes) {
  ObjectReader r(j, file_, path);
  LodGroup g;
  g.name = r.string("name");
  lod_groups_.add(g.name, index, r.at("name"));
  if (r.has("levels") == r.has("mesh"))
    r.here().fail("needs exactly one of \"levels\" or \"mesh\" (with \"generate\")");
  if (const Json* lv = r.find("levels")) {
    const Where where = r.at("levels");
    const auto& items = as_array(*lv, where);
    if (items.empty() || items.size() > size_t(kMaxLodLevels))
      where.fail(std::to_string(items.size()) + " levels, expected 1.." + std::to_string(kMaxLodLevels));
    for (size_t i = 0; i < items.size(); ++i) {
      const Where w{file_, join(where.path, i)};
      g.levels.push_back(meshes_.lookup(strict_json::as_string(items[i], w), w, "mesh"));
    }
  } else {
    const uint32_t source = meshes_.lookup(r.string("mesh"), r.at("mesh"), "mesh");
    const int count = r.integer("generate", kMaxLodLevels, 2, kMaxLodLevels);
    if (meshes[source].triangle_count() == 0) r.at("mesh").fail("mesh has no triangles to simplify");
    const float keep = float(r.number("reduction", 0.5, {0.01, 0.9}));
    std::vector<Mesh> generated =
        at_path(r.at("mesh"), [&] { return simplify_lod_levels(meshes[source], count, keep); });
    g.levels.push_back(source);
    for (Mesh& m : generated) {
      reserve_triangles(m.triangle_count(), r.at("mesh"));
      g.levels.push_back(uint32_t(meshes.size()));
      meshes.push_back(std::move(m));
    }
  }
  if (r.has("generate") && r.has("levels")) r.at("generate").fail("only with \"mesh\"");
  if (r.has("reduction") && r.has("levels")) r.at("reduction").fail("only with \"mesh\"");
  const Where where = r.at("ranges");
  const auto& ranges = as_array(r.require("ranges"), where);
  if (ranges.size() != g.levels.size())
    where.fail(std::to_string(ranges.size()) + " ranges for " + std::to_string(g.levels.size()) +
               " levels (one per level; beyond the last the object is discarded)");
  for (size_t i = 0; i < ranges.size(); ++i) {
    const Where w{file_, join(where.path, i)};
    g.ranges.push_back(float(strict_json::as_number(ranges[i], w, {0.0, 1e30, true})));
    if (i > 0 && !(g.ranges[i] > g.ranges[i - 1])) w.fail("ranges must increase strictly, near to far");
  }
  g.bias = r.number("bias", g.bias, {-1e7, 1e7});
  r.finish();
  lod_finest_.push_back(g.levels[0]);
  lod_coarsest_.push_back(g.levels.back());
  return g;
}

std::vector<Instance> SceneReader::read_grid(const Json& j, const std::string& path, const std::vector<Mesh>& meshes) {
  ObjectReader r(j, file_, path);
  InstanceGridParams p;
  if (r.has("mesh") == r.has("lod_group")) r.here().fail("needs exactly one of \"mesh\" or \"lod_group\"");
  int32_t lod_group = -1;
  if (r.has("lod_group")) {
    lod_group = int32_t(lod_groups_.lookup(r.string("lod_group"), r.at("lod_group"), "LOD group"));
    p.mesh = lod_finest_[size_t(lod_group)];
  } else {
    p.mesh = meshes_.lookup(r.string("mesh"), r.at("mesh"), "mesh");
  }
  p.material = materials_.lookup(r.string("material"), r.at("material"), "material");
  p.count = r.ivec3("count", p.count, 1, int64_t(kMaxGridInstances));
  const uint64_t total = uint64_t(p.count.x) * uint64_t(p.count.y) * uint64_t(p.count.z);
  if (total > kMaxGridInstances) {
    r.at("count").fail(std::to_string(total) + " instances, at most " + std::to_string(kMaxGridInstances) +
                       " per grid");
  }
  p.spacing = r.vec3_or_scalar("spacing", p.spacing, kCoordinate);
  p.origin = r.vec3("origin", p.origin, kCoordinate);
  p.scale = r.number("scale", p.scale, kSize);
  p.random_rotation_y = r.boolean("random_rotation_y", p.random_rotation_y);
  p.scale_jitter = r.number("scale_jitter", p.scale_jitter, {0.0, 0.99});
  p.position_jitter = r.number("position_jitter", p.position_jitter, {0.0, 0.5});
  p.seed = r.seed("seed", p.seed);
  r.finish();
  // Estimated before the grid is built: a grid within the instance limit can still need far
  // more memory than the machine has once every instance is drawn.
  const Mesh& charged = meshes[lod_group >= 0 ? lod_coarsest_[size_t(lod_group)] : p.mesh];
  check_memory(r.at("count"), &charged, total);
  add_instances_to_estimate(estimate_, charged, total);
  std::vector<Instance> grid = at_path(r.here(), [&] { return make_instance_grid(p); });
  for (Instance& inst : grid) inst.lod_group = lod_group;
  return grid;
}

Light SceneReader::read_light(const Json& j, const std::string& path) {
  ObjectReader r(j, file_, path);
  Light l;
  const std::string type = r.string("type");
  if (type == "directional") {
    l.type = LightType::directional;
    const glm::vec3 d = r.required_vec3("direction", kCoordinate);
    if (glm::length(d) == 0.0f) r.at("direction").fail("must not be the zero vector");
    l.direction = glm::normalize(d);
  } else if (type == "point") {
    l.type = LightType::point;
    l.position = r.required_vec3("position", kCoordinate);
  } else {
    r.at("type").fail("unknown light type \"" + type + "\" (expected directional, point)");
  }
  l.color = r.vec3("color", l.color, kUnit);
  l.intensity = r.number("intensity", l.intensity, kIntensity);
  r.finish();
  return l;
}

Camera SceneReader::read_camera(const Json& j, const std::string& path, bool allow_name) {
  ObjectReader r(j, file_, path);
  Camera c;
  if (allow_name) {
    if (const auto name = r.optional_string("name")) {
      if (name->empty()) r.at("name").fail("name must not be empty");
      c.name = *name;
    }
  }
  c.position = r.required_vec3("position", kCoordinate);
  c.target = r.required_vec3("target", kCoordinate);
  c.up = r.vec3("up", c.up, kCoordinate);
  c.fov_y_degrees = r.number("fov_y_degrees", c.fov_y_degrees, {0.0, 180.0, true, true});
  c.near_plane = r.number("near", c.near_plane, {0.0, 1e6, true});
  c.far_plane = r.number("far", c.far_plane, {0.0, 1e9, true});
  r.finish();
  if (!(c.near_plane < c.far_plane)) r.at("far").fail("far must be greater than near");
  const glm::vec3 forward = c.target - c.position;
  if (glm::length(forward) == 0.0f) r.at("target").fail("target coincides with position");
  if (glm::length(c.up) == 0.0f) r.at("up").fail("must not be the zero vector");
  if (glm::length(glm::cross(glm::normalize(forward), glm::normalize(c.up))) < 1e-6f) {
    r.at("up").fail("is parallel to the view direction");
  }
  return c;
}

Scene SceneReader::read(const Json& doc) {
  Scene scene;
  ObjectReader root(doc, file_, "");
  root.allow_only({"description", "meshes", "lod_groups", "patch_meshes", "textures", "materials", "instances", "grids",
                   "lights", "camera", "cameras", "ambient", "background", "fog", "tone_mapping", "models"});
  if (const Json* d = root.find("description")) strict_json::as_string(*d, root.at("description"));

  if (const Json* list = root.find("meshes")) {
    const auto& items = as_array(*list, root.at("meshes"));
    std::vector<MeshBuilder> builders;
    for (size_t i = 0; i < items.size(); ++i) builders.push_back(read_mesh(items[i], join("meshes", i), i));
    for (const MeshBuilder& build : builders) scene.meshes.push_back(build());
  }
  for (const Mesh& m : scene.meshes) {
    estimate_.stored_bytes += m.vertices.size() * sizeof(Vertex) + m.indices.size() * sizeof(uint32_t);
  }
  if (const Json* list = root.find("lod_groups")) {
    const auto& items = as_array(*list, root.at("lod_groups"));
    for (size_t i = 0; i < items.size(); ++i)
      scene.lod_groups.push_back(read_lod_group(items[i], join("lod_groups", i), i, scene.meshes));
  }
  if (const Json* list = root.find("textures")) {
    const auto& items = as_array(*list, root.at("textures"));
    for (size_t i = 0; i < items.size(); ++i) {
      scene.textures.push_back(read_texture(items[i], join("textures", i), i));
      for (const Image& level : scene.textures.back().levels)
        estimate_.stored_bytes += level.pixels.size() * sizeof(Rgba8);
    }
  }
  if (const Json* list = root.find("materials")) {
    const auto& items = as_array(*list, root.at("materials"));
    for (size_t i = 0; i < items.size(); ++i) {
      scene.materials.push_back(read_material(items[i], join("materials", i), i));
    }
  }
  if (const Json* list = root.find("patch_meshes")) {
    const auto& items = as_array(*list, root.at("patch_meshes"));
    for (size_t i = 0; i < items.size(); ++i) {
      scene.patch_meshes.push_back(read_patch_mesh(items[i], join("patch_meshes", i), i, scene.meshes));
    }
  }
  if (const Json* list = root.find("instances")) {
    const auto& items = as_array(*list, root.at("instances"));
    for (size_t i = 0; i < items.size(); ++i) {
      bool patch = false;
      const Instance inst = read_instance(items[i], join("instances", i), patch);
      if (patch) {
        scene.patch_instances.push_back(PatchInstance{inst.mesh, inst.material, inst.transform});
      } else {
        scene.instances.push_back(inst);
        const uint32_t charged = inst.lod_group >= 0 ? lod_coarsest_[size_t(inst.lod_group)] : inst.mesh;
        add_instances_to_estimate(estimate_, scene.meshes[charged], 1);
      }
    }
    check_memory(root.at("instances"));
  }
  if (const Json* list = root.find("grids")) {
    const auto& items = as_array(*list, root.at("grids"));
    for (size_t i = 0; i < items.size(); ++i) {
      std::vector<Instance> grid = read_grid(items[i], join("grids", i), scene.meshes);
      if (scene.instances.size() + grid.size() > kMaxGridInstances) {
        Where{file_, join("grids", i)}.fail("the scene would exceed " + std::to_string(kMaxGridInstances) +
                                            " instances");
      }
      scene.instances.insert(scene.instances.end(), grid.begin(), grid.end());
    }
  }
  if (const Json* list = root.find("lights")) {
    const Where where = root.at("lights");
    const auto& items = as_array(*list, where);
    if (items.size() > size_t(kMaxLights)) {
      where.fail(std::to_string(items.size()) + " lights, at most " + std::to_string(kMaxLights));
    }
    for (size_t i = 0; i < items.size(); ++i) scene.lights.push_back(read_light(items[i], join("lights", i)));
  }
  scene.camera = read_camera(root.require("camera"), "camera", false);
  if (const Json* list = root.find("cameras")) {
    const auto& items = as_array(*list, root.at("cameras"));
    for (size_t i = 0; i < items.size(); ++i) {
      scene.cameras.push_back(read_camera(items[i], join("cameras", i), true));
    }
  }
  // Models come last: their instances follow the scene's, their cameras its "cameras".
  if (const Json* list = root.find("models")) {
    const auto& items = as_array(*list, root.at("models"));
    for (size_t i = 0; i < items.size(); ++i) read_model(items[i], join("models", i), scene);
  }
  scene.ambient = root.vec3("ambient", scene.ambient, kUnit);
  scene.background = root.vec3("background", scene.background, kUnit);
  if (const Json* f = root.find("fog")) {
    ObjectReader fr(*f, file_, "fog");
    scene.fog.color = fr.vec3("color", scene.fog.color, kUnit);
    scene.fog.density = fr.number("density", scene.fog.density, {0.0, kMaxFogDensity});
    fr.finish();
  }
  if (const Json* t = root.find("tone_mapping")) {
    ObjectReader tr(*t, file_, "tone_mapping");
    scene.tone_mapping = read_choice(tr, "operator", scene.tone_mapping, "tone mapping operator",
                                     {{"clamp", ToneMapping::clamp},
                                      {"reinhard", ToneMapping::reinhard},
                                      {"exponential", ToneMapping::exponential}});
    scene.exposure = tr.number("exposure", scene.exposure, {0.0, kMaxExposure, true});
    tr.finish();
  }
  root.finish();
  return scene;
}

}  // namespace

Scene load_scene(const std::filesystem::path& path) {
  // A glTF file is a scene of its own (default camera and light when it has none).
  if (is_model_path(path)) return load_gltf_scene(path);
  const std::string file = path.string();
  const std::string text = read_input_file(path, kMaxJsonFileBytes, "scene");

  const Json doc = strict_json::parse(text, file);
  Scene scene = SceneReader(path, file).read(doc);
  scene.source = path;
  // The reader checks as it goes; this is the same final gate every scene passes.
  validate_scene(scene, file);
  return scene;
}

}  // namespace tessera
