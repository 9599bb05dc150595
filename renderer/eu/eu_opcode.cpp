#include "eu/eu_opcode.h"

#include <cstddef>

namespace tessera::eu {

namespace {
constexpr const char* kOpcodeNames[] = {
#define TESSERA_X(name, desc) #name,
    TESSERA_EU_OPCODES(TESSERA_X)
#undef TESSERA_X
};
constexpr const char* kOpcodeDescriptions[] = {
#define TESSERA_X(name, desc) desc,
    TESSERA_EU_OPCODES(TESSERA_X)
#undef TESSERA_X
};
}  // namespace

const char* opcode_name(Opcode op) { return kOpcodeNames[size_t(op)]; }
const char* opcode_description(Opcode op) { return kOpcodeDescriptions[size_t(op)]; }

}  // namespace tessera::eu
