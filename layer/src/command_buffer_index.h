// Command buffer handle -> its state, for the vkCmd* hot path: a lookup takes no lock and makes
// no call, only acquire loads. The state holds its DeviceData, so one lookup gives both.
//
// Open addressing (linear probing) over atomic slots. Writes (vkAllocateCommandBuffers,
// vkFreeCommandBuffers, pool and device destruction) take `write_mutex_`; reads take nothing.
// Why a lock-free read is sound:
//  - A thread looks up a command buffer it is recording or submitting. Its allocation happened
//    before (the application hands the handle over with synchronisation, and allocation
//    publishes the entry with a release store), and Vulkan forbids freeing it meanwhile (the
//    command buffer and its pool are externally synchronised). So the entry a reader looks for
//    is present and unchanged for the whole read; concurrent writes only add other keys, turn
//    other keys into tombstones or reuse tombstones, which the reader's probe steps over.
//  - An insert stores the value, then publishes the key with release; a reader acquires the key
//    before it reads the value.
//  - Growing copies the live entries into a table of twice the size and publishes it with
//    release. The old table is retired, not freed: a reader may still be probing it, and what it
//    looks for is there (it was live when copied, and retired tables are never written again).
//    Retired tables are freed with the index (at unload); together they are smaller than the
//    live one.
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
  CommandBufferIndex() { table_.store(grow_to(kMinCapacity), std::memory_order_release); }

  CommandBufferState* find(VkCommandBuffer handle) const {
    const Table* t = table_.load(std::memory_order_acquire);
    const uintptr_t key = reinterpret_cast<uintptr_t>(handle);
    for (size_t i = t->home(key);; i = (i + 1) & t->mask) {
      const uintptr_t k = t->slots[i].key.load(std::memory_order_acquire);
      if (k == key) return t->slots[i].value.load(std::memory_order_relaxed);
      if (k == kEmpty) return nullptr;
    }
  }

  void insert(VkCommandBuffer handle, CommandBufferState* state);
  void erase(VkCommandBuffer handle);

 private:
  static constexpr uintptr_t kEmpty = 0;
  static constexpr uintptr_t kTombstone = 1;  // never a handle: handles are aligned pointers
  static constexpr size_t kMinCapacity = 64;

  struct Slot {
    std::atomic<uintptr_t> key{kEmpty};
    std::atomic<CommandBufferState*> value{nullptr};
  };
  struct Table {
    size_t mask = 0;  // capacity - 1 (a power of two)
    size_t used = 0;  // live keys plus tombstones: at most half the capacity, so probes end
    std::unique_ptr<Slot[]> slots;
    size_t home(uintptr_t key) const {  // Fibonacci hashing: handles are pointers, low bits alike
      return size_t((uint64_t(key) * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    }
  };

  Table* grow_to(size_t capacity);  // under write_mutex_ (or in the constructor)

  std::mutex write_mutex_;
  std::atomic<Table*> table_{nullptr};
  std::vector<std::unique_ptr<Table>> tables_;  // the live one last, the retired ones before it
};

}  // namespace tessera::layer
