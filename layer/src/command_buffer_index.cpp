#include "command_buffer_index.h"

namespace tessera::layer {

CommandBufferIndex::CommandBufferIndex() {
  std::lock_guard lock(write_mutex_);
  rebuild(kMinCapacity);
}

size_t CommandBufferIndex::tables() const {
  std::lock_guard lock(write_mutex_);
  return tables_.size();
}

void CommandBufferIndex::rebuild(size_t capacity) {
  Table* old = table_.load(std::memory_order_relaxed);
  // The spare of this capacity (not the live table), else a new one.
  Table* t = nullptr;
  for (const auto& candidate : tables_)
    if (candidate.get() != old && candidate->mask + 1 == capacity) t = candidate.get();
  if (!t) {
    tables_.push_back(std::make_unique<Table>());
    t = tables_.back().get();
    t->mask = capacity - 1;
    t->slots = std::make_unique<Slot[]>(capacity);
  }
  // Seqlock writer: readers still in the spare see the odd version and retry.
  const uint64_t version = t->version.load(std::memory_order_relaxed);
  t->version.store(version + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  for (size_t i = 0; i <= t->mask; ++i) {
    t->slots[i].key.store(kEmpty, std::memory_order_relaxed);
    t->slots[i].value.store(nullptr, std::memory_order_relaxed);
  }
  t->used = 0;
  if (old) {
    for (size_t i = 0; i <= old->mask; ++i) {
      const uintptr_t k = old->slots[i].key.load(std::memory_order_relaxed);
      if (k == kEmpty || k == kTombstone) continue;
      size_t j = t->home(k);
      while (t->slots[j].key.load(std::memory_order_relaxed) != kEmpty) j = (j + 1) & t->mask;
      t->slots[j].value.store(old->slots[i].value.load(std::memory_order_relaxed), std::memory_order_relaxed);
      t->slots[j].key.store(k, std::memory_order_relaxed);
      ++t->used;
    }
  }
  t->version.store(version + 2, std::memory_order_release);
  table_.store(t, std::memory_order_release);
}

void CommandBufferIndex::insert(VkCommandBuffer handle, CommandBufferState* state) {
  std::lock_guard lock(write_mutex_);
  Table* t = table_.load(std::memory_order_relaxed);
  const uintptr_t key = reinterpret_cast<uintptr_t>(handle);
  size_t reuse = SIZE_MAX;  // the first tombstone on the probe
  for (size_t i = t->home(key);; i = (i + 1) & t->mask) {
    const uintptr_t k = t->slots[i].key.load(std::memory_order_relaxed);
    if (k == key) {  // a handle the driver reused without the layer seeing it freed
      t->slots[i].value.store(state, std::memory_order_release);
      return;
    }
    if (k == kTombstone && reuse == SIZE_MAX) reuse = i;
    if (k == kEmpty) {
      if (reuse == SIZE_MAX) {
        reuse = i;
        ++t->used;
      }
      break;
    }
  }
  t->slots[reuse].value.store(state, std::memory_order_relaxed);
  t->slots[reuse].key.store(key, std::memory_order_release);
  if (2 * t->used > t->mask + 1) {
    size_t live = 0;
    for (size_t i = 0; i <= t->mask; ++i) live += t->slots[i].key.load(std::memory_order_relaxed) > kTombstone;
    size_t capacity = t->mask + 1;
    while (4 * live > capacity) capacity *= 2;  // at most a quarter full after the rebuild
    rebuild(capacity);
  }
}

void CommandBufferIndex::erase(VkCommandBuffer handle) {
  std::lock_guard lock(write_mutex_);
  Table* t = table_.load(std::memory_order_relaxed);
  const uintptr_t key = reinterpret_cast<uintptr_t>(handle);
  for (size_t i = t->home(key);; i = (i + 1) & t->mask) {
    const uintptr_t k = t->slots[i].key.load(std::memory_order_relaxed);
    if (k == kEmpty) return;
    if (k == key) {
      t->slots[i].key.store(kTombstone, std::memory_order_release);
      t->slots[i].value.store(nullptr, std::memory_order_relaxed);
      return;
    }
  }
}

}  // namespace tessera::layer
