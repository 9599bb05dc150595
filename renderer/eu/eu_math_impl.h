// The branch-free math library's algorithms, written once and templated on the instruction set
// they run on (K): EuCounters selects the counted datapath model (eu_math.cpp, eu::math), NativeIsa
// the bit-identical native instructions (native_isa.h; eu_native_math.cpp, eu::native). No code
// here looks at a value: every special input (NaN, +-inf, +-0, subnormal, negative) flows
// through the same instructions, and the instructions' own special-case rules (docs/eu.md,
// opcode table) produce the IEEE results. The comment above each function says which rule
// handles which special. With no data-dependent control flow, a function's instruction mix per
// opcode is the same on every input (eu::call_profile). Private to renderer/eu.
#pragma once

#include "eu/eu_math_kernels.h"

namespace tessera::eu::algo {
#include "eu/eu_math_algo_body.h"  // IWYU pragma: export
}  // namespace tessera::eu::algo
