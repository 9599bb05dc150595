// The memory ledger: bytes read from and written to modelled GPU memory, per client.
// Each tile or worker owns a ledger and the frame merges them, so counting never locks.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace tessera {

class Stats;

// Clients of the memory system. Add new ones here; names come from the same list.
// clang-format off
#define TESSERA_MEMORY_CLIENTS(X)                                                   \
  X(vertex, "vertex attribute fetch")                                              \
  X(index, "index buffer fetch")                                                   \
  X(parameter, "binned primitive records and per-tile lists (parameter buffer)")   \
  X(texture, "texel fetch")                                                        \
  X(depth, "depth buffer")                                                         \
  X(color, "colour buffer: planes of a multisampled target, or the single-sample image")  \
  X(color_index, "colour index bits (per-sample plane indices or an index-bit palette)") \
  X(color_control, "colour control surface (4 bits per 8x4 tile)")               \
  X(tessellation, "patch records written and read back by off-chip tessellation redistribution") \
  X(rt, "ray tracing: BVH nodes, triangle blocks and LOD records fetched (read); LOD levels loaded by the residency manager (written)")
// clang-format on

enum class MemoryClient : int {
#define TESSERA_X(name, desc) name,
  TESSERA_MEMORY_CLIENTS(TESSERA_X)
#undef TESSERA_X
      count
};

constexpr int kMemoryClientCount = int(MemoryClient::count);
const char* memory_client_name(MemoryClient client);
const char* memory_client_description(MemoryClient client);

struct MemoryLedger {
  std::array<uint64_t, kMemoryClientCount> read{};
  std::array<uint64_t, kMemoryClientCount> written{};

  void add_read(MemoryClient c, uint64_t bytes) { read[size_t(c)] += bytes; }
  void add_write(MemoryClient c, uint64_t bytes) { written[size_t(c)] += bytes; }
  void merge(const MemoryLedger& other);
  uint64_t total_read() const;
  uint64_t total_written() const;

  // Publishes memory.<client>.read_bytes / written_bytes and memory.total.*.
  void publish(Stats& stats) const;
};

}  // namespace tessera
