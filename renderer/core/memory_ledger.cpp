#include "tessera/memory_ledger.h"

#include <string>

#include "tessera/stats.h"

namespace tessera {

namespace {
constexpr const char* kNames[] = {
#define TESSERA_X(name, desc) #name,
    TESSERA_MEMORY_CLIENTS(TESSERA_X)
#undef TESSERA_X
};
constexpr const char* kDescriptions[] = {
#define TESSERA_X(name, desc) desc,
    TESSERA_MEMORY_CLIENTS(TESSERA_X)
#undef TESSERA_X
};
}  // namespace

const char* memory_client_name(MemoryClient client) { return kNames[int(client)]; }
const char* memory_client_description(MemoryClient client) { return kDescriptions[int(client)]; }

void MemoryLedger::merge(const MemoryLedger& other) {
  for (int i = 0; i < kMemoryClientCount; ++i) {
    read[size_t(i)] += other.read[size_t(i)];
    written[size_t(i)] += other.written[size_t(i)];
  }
}

uint64_t MemoryLedger::total_read() const {
  uint64_t sum = 0;
  for (uint64_t b : read) sum += b;
  return sum;
}

uint64_t MemoryLedger::total_written() const {
  uint64_t sum = 0;
  for (uint64_t b : written) sum += b;
  return sum;
}

void MemoryLedger::publish(Stats& stats) const {
  for (int i = 0; i < kMemoryClientCount; ++i) {
    const std::string base = std::string("memory.") + kNames[i];
    stats.set(base + ".read_bytes", read[size_t(i)]);
    stats.set(base + ".written_bytes", written[size_t(i)]);
  }
  stats.set("memory.total.read_bytes", total_read());
  stats.set("memory.total.written_bytes", total_written());
}

}  // namespace tessera
