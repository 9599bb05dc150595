#include "eu/eu_counters.h"

#include "tessera/stats.h"

namespace tessera::eu {

namespace {
constexpr const char* kKeys[] = {
#define TESSERA_X(name, key, desc) key,
    TESSERA_EU_COUNTERS(TESSERA_X)
#undef TESSERA_X
};
constexpr const char* kDescriptions[] = {
#define TESSERA_X(name, key, desc) desc,
    TESSERA_EU_COUNTERS(TESSERA_X)
#undef TESSERA_X
};
constexpr const char* kOpcodeKeys[] = {
#define TESSERA_X(name, desc) "eu.instructions." #name,
    TESSERA_EU_OPCODES(TESSERA_X)
#undef TESSERA_X
};
static_assert(std::size(kOpcodeKeys) == size_t(kOpcodeCount));
}  // namespace

const char* EuCounters::key(Id id) { return kKeys[id]; }
const char* EuCounters::key(Opcode op) { return kOpcodeKeys[size_t(op)]; }
const char* EuCounters::description(Id id) { return kDescriptions[id]; }

void EuCounters::publish(Stats& stats) const {
  for (int i = 0; i < count; ++i) stats.set(kKeys[i], v[size_t(i)]);
  for (int i = 0; i < kOpcodeCount; ++i) stats.set(kOpcodeKeys[i], instructions[size_t(i)]);
}

}  // namespace tessera::eu
