// The one place the renderer includes Highway (libhwy-dev), so every lane file gets the same
// targets. A lane file that defines HWY_TARGET_INCLUDE (its own path) before including this
// header is compiled once per target (foreach_target.h: AVX-512 and AVX2 on x86-64-v3, the
// baseline alone on other machines) and calls through HWY_EXPORT / HWY_DYNAMIC_DISPATCH, which
// picks the best target the CPU supports at run time (core/lane_target.h can force one). Its
// results must be bit for bit the scalar path's on every target: the build passes
// -ffp-contract=off and lane code names every fused operation. Without HWY_TARGET_INCLUDE a
// file gets the build's static baseline target only.
//
// No include guard: foreach_target.h includes the lane file again per target, and each pass
// must reach hwy/highway.h (which has per-target guards of its own).

// x86-64-v3 has no PCLMUL/AES, which Highway 1.0 otherwise requires before it takes AVX2 as
// the static target; no lane code needs them.
#ifndef HWY_DISABLE_PCLMUL_AES
#define HWY_DISABLE_PCLMUL_AES 1
#endif
// TESSERA_LANE_DISPATCH=OFF (CMake) compiles the lane code for the baseline target alone.
#if defined(TESSERA_LANES_STATIC_ONLY) && !defined(HWY_COMPILE_ONLY_STATIC)
#define HWY_COMPILE_ONLY_STATIC 1
#endif
#ifdef HWY_TARGET_INCLUDE
#include <hwy/foreach_target.h>  // include-guarded: acts on the first pass, re-including the file per target
#endif
#include <hwy/highway.h>
