#include "eu/eu_counters.h"

#include "tessera/stats.h"

namespace tessera::eu {

namespace {
constexpr const char* kOpcodeKeys[] = {
#define TESSERA_X(name, desc) "eu.instructions." #name,
    TESSERA_EU_OPCODES(TESSERA_X)
#undef TESSERA_X
};
static_assert(std::size(kOpcodeKeys) == size_t(kOpcodeCount));
}  // namespace

const char* EuCounters::key(Opcode op) { return kOpcodeKeys[size_t(op)]; }

void EuCounters::publish(Stats& stats) const {
  CounterSet<EuCounterIds>::publish(stats);
  for (int i = 0; i < kOpcodeCount; ++i) stats.set(kOpcodeKeys[i], instructions[size_t(i)]);
}

}  // namespace tessera::eu
