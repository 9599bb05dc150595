// The one place the renderer includes Highway (libhwy-dev), so every lane file gets the same
// static target. The lane code is compiled once for the build's baseline (-march=x86-64-v3:
// AVX2; NEON on AArch64), not per target: its results must be bit for bit the scalar path's.
#pragma once

// x86-64-v3 has no PCLMUL/AES, which Highway 1.0 otherwise requires before it takes AVX2 as
// the static target; no lane code needs them.
#ifndef HWY_DISABLE_PCLMUL_AES
#define HWY_DISABLE_PCLMUL_AES 1
#endif
#include <hwy/highway.h>
