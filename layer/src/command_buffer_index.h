// Command buffer handle -> its state, for the vkCmd* hot path: a lookup takes no lock, only
// loads. The state holds its DeviceData, so one lookup gives both.
//
// Open addressing (linear probing, tombstones) over atomic slots. Writes (allocation, free, pool
// and device destruction) take `write_mutex_`; reads take nothing. Sound because:
//  - A thread looks up a command buffer it records or submits. Allocation happened before
//    (the application hands the handle over with synchronisation; the key is published with a
//    release store after its value) and Vulkan forbids freeing it meanwhile (command buffers and
//    pools are externally synchronised), so that entry is present and unchanged during the
//    read. Concurrent writes add other keys or turn other keys into tombstones, which the probe
//    steps over.
//  - When tombstones and keys fill half the table, the live keys are copied into another table
//    that is then published. The old one is not freed: it becomes the spare that a later rebuild
//    of that size rewrites, so churn (command buffers allocated and freed every frame) needs no
//    new memory. A reader still probing a table that gets rewritten sees its version change
//    (a seqlock: odd while rewritten) and looks again in the current table.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "commands.h"

namespace tessera::layer {

struct CommandBufferState;

class CommandBufferIndex {
 public:
  CommandBufferIndex();

  CommandBufferState* find(VkCommandBuffer handle) const {
    const uintptr_t key = reinterpret_cast<uintptr_t>(handle);
    for (;;) {
      const Table* t = table_.load(std::memory_order_acquire);
      const uint64_t version = t->version.load(std::memory_order_acquire);
      CommandBufferState* found = nullptr;
      size_t i = t->home(key);
      for (size_t n = 0; n <= t->mask; ++n, i = (i + 1) & t->mask) {  // bounded: the table may be rewritten
        const uintptr_t k = t->slots[i].key.load(std::memory_order_acquire);
        if (k == key) {
          found = t->slots[i].value.load(std::memory_order_relaxed);
          break;
        }
        if (k == kEmpty) break;
      }
      std::atomic_thread_fence(std::memory_order_acquire);
      if ((version & 1) == 0 && t->version.load(std::memory_order_relaxed) == version) return found;
    }
  }

  void insert(VkCommandBuffer handle, CommandBufferState* state);
  void erase(VkCommandBuffer handle);
  size_t tables() const;  // tables allocated so far (the live one and the spares)

 private:
  static constexpr uintptr_t kEmpty = 0;
  static constexpr uintptr_t kTombstone = 1;  // never a handle: handles are aligned pointers
  static constexpr size_t kMinCapacity = 64;

  struct Slot {
    std::atomic<uintptr_t> key{kEmpty};
    std::atomic<CommandBufferState*> value{nullptr};
  };
  struct Table {
    std::atomic<uint64_t> version{0};  // odd while the table is being rewritten
    size_t mask = 0;                   // capacity - 1 (a power of two)
    size_t used = 0;                   // keys plus tombstones: at most half the capacity
    std::unique_ptr<Slot[]> slots;
    size_t home(uintptr_t key) const {  // Fibonacci hashing: handles are pointers, low bits alike
      return size_t((uint64_t(key) * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    }
  };

  void rebuild(size_t capacity);  // under write_mutex_

  mutable std::mutex write_mutex_;
  std::atomic<Table*> table_{nullptr};
  std::vector<std::unique_ptr<Table>> tables_;  // every table made, at most two of each capacity
};

}  // namespace tessera::layer
