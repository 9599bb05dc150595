// The texture unit's lane code beyond tessera/sampler.h, for its tests: the level of detail's
// logarithm in lanes and the choice between it and the C library's.
#pragma once

#include "tessera/scene.h"

namespace tessera {

// Where texture_lod_lanes takes log2 of a quad's derivative length: in SIMD lanes (glibc's
// log2f algorithm, bit for bit) or per quad from the C library, as texture_lod does.
enum class LodLog2 { lanes, libm };

// glibc's log2f of n positive normal floats in lanes (other inputs give unspecified values).
void log2_normal_lanes(const float* x, int n, float* out);

// Whether log2_normal_lanes returns what this process's std::log2(float) does, on a fixed set
// of probes (checked on first call); texture_lod_lanes takes the lanes only then.
bool log2_lanes_match_libm();

// texture_lod_lanes with the logarithm's source chosen.
void texture_lod_lanes(const Texture& texture, const float* dudx, const float* dvdx, const float* dudy,
                       const float* dvdy, int n, float* lod, LodLog2 log2);

}  // namespace tessera
