// The native instruction set on SIMD lanes: the branch-free algorithms (eu_math_impl.h) run on a
// vector of binary32 lanes (eu_lanes.cpp, Highway) exactly as they run on one float, one
// instruction for all lanes, as the modelled 16-lane EU issues them. L is a lane-vector type
// with static members for each opcode; LaneIsa<L> carries the lanes that left the vector fast
// path (a non-normal operand, a result outside the normal range, a NaN): those lanes are
// evaluated again by the scalar eu_fast functions, so every lane is bit-identical to them.
//
// No include guard and no namespace: eu_lanes.cpp includes it once per Highway target inside
// that target's own `eu` namespace, before that target's copy of the kernels and algorithms
// (eu_math_kernels_body.h, eu_math_algo_body.h), which call eu::fma/add/mul by qualified name
// and so bind to these overloads. <type_traits> must be included first. Private to renderer/eu.

template <class L>
struct LaneIsa {
  typename L::Mask slow = L::no_lanes();  // lanes to evaluate again on the scalar path
};

// Only the ISA argument deduces L: constants (floats, coefficient doubles) convert to lanes.
template <class L>
using LaneOf = std::type_identity_t<L>;

template <class L>
L fma(LaneOf<L> a, LaneOf<L> b, LaneOf<L> c, LaneIsa<L>&) {
  return L::fma(a, b, c);
}
template <class L>
L add(LaneOf<L> a, LaneOf<L> b, LaneIsa<L>&) {
  return L::add(a, b);
}
template <class L>
L mul(LaneOf<L> a, LaneOf<L> b, LaneIsa<L>&) {
  return L::mul(a, b);
}
template <class L>
L getexp(LaneOf<L> x, int imm, LaneIsa<L>& k) {
  return L::getexp(x, imm, k.slow);
}
template <class L>
L getmant(LaneOf<L> x, int interval, int signctrl, LaneIsa<L>& k) {
  return L::getmant(x, interval, signctrl, k.slow);
}
template <class L>
L scalef(LaneOf<L> x, LaneOf<L> y, LaneIsa<L>& k) {
  return L::scalef(x, y, k.slow);
}
template <class L>
L getexpdiff(LaneOf<L> a, LaneOf<L> b, LaneIsa<L>& k) {
  return L::getexpdiff(a, b, k.slow);
}
template <class L>
L getmantdiv(LaneOf<L> a, LaneOf<L> b, LaneIsa<L>& k) {
  return L::getmantdiv(a, b, k.slow);
}
