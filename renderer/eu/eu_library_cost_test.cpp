// What a shader's calls cost with each EU math library (the timing model's
// hardware.math_library): the branch-free library the frame runs, or the branchy baseline.
#include <gtest/gtest.h>

#include "eu/eu_math.h"
#include "tessera/eu_shader_math.h"

namespace tessera {
namespace {

TEST(EuLibraryCost, BaselineChargesTheBranchyCallsAndTheSameArithmetic) {
  EuShaderMath shader, arithmetic;
  shader.sqrt(2.0f);
  shader.div(1.0f, 3.0f);
  shader.div(5.0f, 7.0f);
  shader.alu(3, 2, 1);
  arithmetic.alu(3, 2, 1);
  const uint64_t calls = eu::baseline_call_instructions(eu::MathFunction::sqrt) +
                         2 * eu::baseline_call_instructions(eu::MathFunction::div);
  EXPECT_EQ(shader.baseline_instructions(), arithmetic.instructions() + calls);
  EXPECT_EQ(arithmetic.baseline_instructions(), arithmetic.instructions());
  // docs/eu.md: the branch-free sqrt and div take at least 30% fewer instructions.
  EXPECT_LT(double(shader.instructions() - arithmetic.instructions()), 0.7 * double(calls));
}

}  // namespace
}  // namespace tessera
