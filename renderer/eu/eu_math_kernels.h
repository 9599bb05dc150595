// Polynomial, double-word and Newton cores shared by the branch-free math library
// (eu_math_impl.h) and the branchy baseline (eu_math_baseline.cpp): both reduce the argument
// differently and then run the same instructions on the reduced value. Every core is templated
// on the instruction set K: EuCounters (the counted datapath model, fma_datapath.h) or a
// NativeIsaT (native_isa.h, bit-identical and uncounted). Private to renderer/eu.
#pragma once

#include <cstddef>

#include "eu/eu_math_coefficients.h"
#include "eu/eu_math_coefficients_dw.h"
#include "eu/fma_datapath.h"
#include "eu/native_isa.h"

namespace tessera::eu::kernels {
#include "eu/eu_math_kernels_body.h"  // IWYU pragma: export
}  // namespace tessera::eu::kernels
