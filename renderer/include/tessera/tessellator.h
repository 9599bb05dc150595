// The fixed-function tessellator: turns one patch's tessellation factors into domain points and
// primitives (triangles for the quad and triangle domains, line segments for isolines) by the Vulkan factor rules,
// in the D3D11 reference tessellator's fixed-point pattern (bit for bit lavapipe's). Functional only: the GPP array
// and the cost model charge what it returns. docs/tessellator.md: rules, algorithm, winding, point order, counts.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

namespace tessera {

// Abstract patch domain (Vulkan Triangles / Quads / IsoLines execution modes).
enum class TessDomain : uint8_t { kTriangle, kQuad, kIsoline };

// Edge subdivision rule (Vulkan SpacingEqual / SpacingFractionalOdd / SpacingFractionalEven).
enum class TessSpacing : uint8_t { kEqual, kFractionalOdd, kFractionalEven };

// What the indices of a TessellatedPatch describe.
enum class TessPrimitive : uint8_t { kTriangles, kLines };

// Largest tessellation level (Vulkan maxTessellationGenerationLevel as lavapipe reports it).
constexpr int kMaxTessLevel = 64;

// Factors as a hull (control) shader writes them, Vulkan gl_TessLevelOuter / gl_TessLevelInner.
// Triangles: outer[0..2] for the edges u=0, v=0, w=0 and inner[0]. Quads: outer[0..3] for the
// edges u=0, v=0, u=1, v=1 and inner[0] (along u), inner[1] (along v). Isolines: outer[0] = number
// of lines, outer[1] = segments per line. Unused entries are ignored. 24 bytes: 6 floats.
struct TessFactors {
  std::array<float, 4> outer{};
  std::array<float, 2> inner{};
};
static_assert(sizeof(TessFactors) == 24, "tessellation factors are 6 floats");

// Factors after culling, clamping and rounding: what the tessellator actually subdivides.
// `segments` is the integer number of segments per edge (after rounding to the spacing's parity); `level` is
// the clamped level in 16.16 fixed point (as a float, exact) that drives fractional point placement.
// Entries a domain does not use are 0. 52 bytes.
struct ResolvedTessFactors {
  std::array<float, 4> outer_level{};
  std::array<float, 2> inner_level{};
  std::array<int32_t, 4> outer_segments{};
  std::array<int32_t, 2> inner_segments{};
  uint32_t culled = 0;  // 1 when a used outer factor is <= 0 or NaN: the patch produces nothing
};
static_assert(sizeof(ResolvedTessFactors) == 52, "resolved factors: 6 floats, 6 ints, a flag");

// One tessellated patch. Points are domain coordinates: (u, v, 0) for quads and isolines,
// barycentric (u, v, w) with u + v + w = 1 for triangles. Indices are triangles (3 per
// primitive, counter-clockwise in (u, v) with u to the right and v up) or line segments (2 per
// primitive, increasing u). A culled patch has no points and no indices.
struct TessellatedPatch {
  std::vector<glm::vec3> points;
  std::vector<uint32_t> indices;
  TessPrimitive kind = TessPrimitive::kTriangles;
  bool culled = false;

  // Number of triangles or line segments.
  size_t primitive_count() const { return indices.size() / (kind == TessPrimitive::kLines ? 2 : 3); }
};

// Applies the cull rule, clamping, rounding and the inner-level-1 rule of the Vulkan spec.
ResolvedTessFactors resolve_tess_factors(TessDomain domain, TessSpacing spacing, const TessFactors& factors);

// Points of one edge of `segments` segments (its parity) for the clamped level `level`: segments + 1 multiples of
// 2^-16 from 0 to 1, mirror-symmetric bit for bit (result[segments - i] == 1 - result[i]), so a neighbour walking
// the edge the other way gets the same points. Equal spacing is level == segments. Increasing, except that a level
// just above an integer of its parity can repeat a point or step back a few 2^-16 at the middle (as the reference).
std::vector<float> tess_edge_parameters(float level, int segments);

// Tessellates one patch.
TessellatedPatch tessellate(TessDomain domain, TessSpacing spacing, const TessFactors& factors);
// The same into `out`, reusing its storage: a caller tessellating patch after patch allocates
// nothing once its buffers have grown to the largest patch.
void tessellate(TessDomain domain, TessSpacing spacing, const TessFactors& factors, TessellatedPatch& out);

// Number of points and primitives tessellate() produces for these factors, without building
// them (the closed forms of docs/tessellator.md).
struct TessCounts {
  uint64_t points = 0;
  uint64_t primitives = 0;
};
TessCounts tess_counts(TessDomain domain, const ResolvedTessFactors& resolved);

// Names used by the CLI and stats: "tri", "quad", "isoline"; "equal", "fractional_odd",
// "fractional_even". parse_* return false for an unknown name.
std::string_view tess_domain_name(TessDomain domain);
std::string_view tess_spacing_name(TessSpacing spacing);
bool parse_tess_domain(std::string_view name, TessDomain& out);
bool parse_tess_spacing(std::string_view name, TessSpacing& out);

}  // namespace tessera
