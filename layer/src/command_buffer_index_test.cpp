// The lock-free command buffer index under the concurrency Vulkan allows: threads allocating,
// looking up and freeing their own command buffers while others do the same (and grow the
// table), each lookup of a live handle seeing its state, no lookup of a freed one seeing any.
#include "command_buffer_index.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace tessera::layer {
namespace {

// Distinct fake handles (aligned like real dispatchable handles) and distinct fake states.
VkCommandBuffer handle(uintptr_t thread, uintptr_t i) {
  return reinterpret_cast<VkCommandBuffer>((thread << 32 | i) * 16 + 4096);
}
CommandBufferState* state(uintptr_t thread, uintptr_t i) {
  return reinterpret_cast<CommandBufferState*>((thread << 32 | i) * 8 + 8);
}

TEST(CommandBufferIndex, FindsWhatIsInsertedAndNotWhatIsErased) {
  CommandBufferIndex index;
  for (uintptr_t i = 0; i < 1000; ++i) index.insert(handle(0, i), state(0, i));
  for (uintptr_t i = 0; i < 1000; i += 2) index.erase(handle(0, i));
  for (uintptr_t i = 0; i < 1000; ++i) EXPECT_EQ(index.find(handle(0, i)), i % 2 ? state(0, i) : nullptr) << i;
  // A handle value the driver hands out again gets its new state.
  index.insert(handle(0, 1), state(1, 1));
  EXPECT_EQ(index.find(handle(0, 1)), state(1, 1));
  EXPECT_EQ(index.find(handle(7, 7)), nullptr);
}

TEST(CommandBufferIndex, ConcurrentAllocateRecordFree) {
  CommandBufferIndex index;
  constexpr uintptr_t kThreads = 8, kRounds = 200, kPerRound = 64;
  std::atomic<uint64_t> wrong{0};
  std::vector<std::thread> threads;
  for (uintptr_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uintptr_t r = 0; r < kRounds; ++r) {
        // Some command buffers live across rounds (pools kept), most are freed each round.
        const uintptr_t base = r % 4 == 0 ? (r / 4 + 1) * kPerRound : 0;
        for (uintptr_t i = 0; i < kPerRound; ++i) index.insert(handle(t, base + i), state(t, base + i));
        for (int pass = 0; pass < 4; ++pass)
          for (uintptr_t i = 0; i < kPerRound; ++i) wrong += index.find(handle(t, base + i)) != state(t, base + i);
        if (r % 4 != 0) {
          for (uintptr_t i = 0; i < kPerRound; ++i) index.erase(handle(t, base + i));
          for (uintptr_t i = 0; i < kPerRound; ++i) wrong += index.find(handle(t, base + i)) != nullptr;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0u);
  for (uintptr_t t = 0; t < kThreads; ++t)
    for (uintptr_t r = 0; r < kRounds; r += 4)
      for (uintptr_t i = 0; i < kPerRound; ++i)
        EXPECT_EQ(index.find(handle(t, (r / 4 + 1) * kPerRound + i)), state(t, (r / 4 + 1) * kPerRound + i));
}

// Command buffers allocated and freed every frame, each time at a new address: the table is
// rebuilt again and again (tombstones), into its spare, while other threads keep finding theirs.
TEST(CommandBufferIndex, ChurnReusesTheSpareTable) {
  CommandBufferIndex index;
  constexpr uintptr_t kReaders = 3, kLive = 8;
  for (uintptr_t t = 1; t <= kReaders; ++t)
    for (uintptr_t i = 0; i < kLive; ++i) index.insert(handle(t, i), state(t, i));
  std::atomic<bool> done{false};
  std::atomic<uint64_t> wrong{0}, lookups{0};
  std::atomic<uintptr_t> reading{0};
  std::vector<std::thread> readers;
  for (uintptr_t t = 1; t <= kReaders; ++t) {
    readers.emplace_back([&, t] {
      bool counted = false;
      do {
        for (uintptr_t i = 0; i < kLive; ++i) wrong += index.find(handle(t, i)) != state(t, i);
        lookups += kLive;
        if (!counted) ++reading;
        counted = true;
      } while (!done.load(std::memory_order_relaxed));
    });
  }
  // The churn starts once every reader is reading (on a loaded machine they may start late).
  while (reading.load() < kReaders) std::this_thread::yield();
  size_t tables = 0;
  for (uintptr_t frame = 0; frame < 100000; ++frame) {
    index.insert(handle(0, frame), state(0, frame));
    index.erase(handle(0, frame));
    if (frame == 1000) tables = index.tables();
  }
  done = true;
  for (std::thread& th : readers) th.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(lookups.load(), 0u);
  EXPECT_EQ(index.tables(), tables);  // the live table and its spare, however long the churn
}

}  // namespace
}  // namespace tessera::layer
