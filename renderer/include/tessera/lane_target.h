// Which SIMD target the renderer's lane code runs on. The lane files (raster, texture sampling,
// the EU library's lane batches) are compiled for several targets (AVX-512 and AVX2 on the
// x86-64-v3 build, the baseline alone elsewhere or with TESSERA_LANE_DISPATCH=OFF) and the best
// one the CPU supports is picked at run time. Every target gives bit-identical results; forcing
// one is for measuring and testing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tessera {

// Applies the TESSERA_LANE_TARGET environment variable (a name set_lane_target accepts) the
// first time it is called, later calls do nothing; throws tessera::Error naming the variable
// when its value is not one (and applies nothing, so the next call reports it again). Every
// Renderer calls it when it is made, before any lane code runs.
void apply_lane_target_environment();

// The target the lane code runs on now ("AVX3" is AVX-512), Highway's name, after
// apply_lane_target_environment().
std::string lane_target();

// The targets compiled into this build that this CPU runs, best first.
std::vector<std::string> lane_targets();

// Forces the lane code onto `name`, case-insensitive: a name from lane_targets() ("avx512" is
// an alias of "AVX3"), or "best" for the run-time choice. Throws tessera::Error for a target
// not compiled into this build or not supported by the CPU.
void set_lane_target(std::string_view name);

}  // namespace tessera
