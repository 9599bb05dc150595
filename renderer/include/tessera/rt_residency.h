// Residency of LOD levels for the ray-tracing unit (spec rt-lod.md, docs/rt.md): which level of
// which LOD object is in (modelled) memory, under a byte budget, with three policies, the
// used/wanted bit registers and the per-frame load queue.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/config.h"
#include "tessera/counter_set.h"
#include "tessera/rt.h"

namespace tessera {
class Stats;
struct MemoryLedger;
}  // namespace tessera

namespace tessera::rt {

const char* residency_policy_name(ResidencyPolicy policy);

// What a frame did to residency, X(name, stats key, meaning): counts of the frame's events,
// published by Residency::publish beside the frame's figures (ResidencyFrame).
// clang-format off
#define TESSERA_RT_RESIDENCY_COUNTERS(X)                                                              \
  X(loads, "rt.residency.loads", "levels loaded: during the frame (demand) or after it (lazy)")       \
  X(loaded_bytes, "rt.residency.loaded_bytes", "bytes of the levels loaded")                          \
  X(stall_loads, "rt.residency.stall_loads", "demand: loads rays waited for")                         \
  X(stall_bytes, "rt.residency.stall_bytes", "demand: bytes of the loads rays waited for")            \
  X(evictions, "rt.residency.evictions", "levels evicted")                                            \
  X(deferred, "rt.residency.deferred", "lazy: wanted levels that did not fit the budget")             \
  X(used_levels, "rt.residency.used_levels", "bits set in the used register")                         \
  X(wanted_levels, "rt.residency.wanted_levels", "bits set in the wanted register")
// clang-format on

TESSERA_DEFINE_COUNTER_IDS(ResidencyCounterIds, TESSERA_RT_RESIDENCY_COUNTERS);
using ResidencyCounters = CounterSet<ResidencyCounterIds>;

// What one frame did, from end_frame(): its counts, and figures of its state, which are levels
// rather than sums (resident bytes do not add up over frames).
struct ResidencyFrame {
  ResidencyCounters counts;
  uint64_t frame = 0;
  uint64_t resident_bytes = 0;  // after the frame's loads and evictions (base included)
  uint64_t peak_bytes = 0;      // most resident during the frame
  uint64_t needed_bytes = 0;    // base + every level used or wanted: what the frame would have needed
  uint64_t budget_bytes = 0;
};

// One per acceleration structure and render; the traversal calls select() from many threads.
// The unit of residency is (LOD object, level); `base` bytes (top level, plain meshes) are
// always resident and count against the budget.
class Residency {
 public:
  Residency(const AccelerationStructure& as, ResidencyPolicy policy, uint64_t budget_bytes);

  // The level a LOD node uses when it selected `wanted` of `object` (thread-safe): sets the
  // used bit of the level used and, when that differs, the wanted bit of `wanted`. Returns -1
  // when no level of the object is resident (the object is skipped). `substituted` is set
  // when the level used differs from the wanted one.
  // Inline: a resident wanted level (nearly every call, for every policy) marks its used bit
  // and returns; the rest (substitution, demand loads, the range check's error) is out of line.
  int select(uint32_t object, int wanted, bool& substituted) {
    if (object < level_count_.size() && uint32_t(wanted) < level_count_[object]) {
      const size_t u = unit(object, wanted);
      if (resident_[u].load(std::memory_order_relaxed)) {
        substituted = false;
        mark(used_bits_, u);
        return wanted;
      }
    }
    return select_slow(object, wanted, substituted);
  }

  // After the frame: reads the registers, loads (lazy: the wanted levels, within the budget,
  // evicting levels not used this frame, least recently used first), evicts down to the
  // budget (demand), clears the registers and returns the frame's figures.
  ResidencyFrame end_frame();

  bool resident(uint32_t object, int level) const;
  bool used(uint32_t object, int level) const;  // this frame's register
  bool wanted(uint32_t object, int level) const;
  uint64_t resident_bytes() const { return resident_bytes_.load(); }
  uint64_t base_bytes() const { return base_bytes_; }
  uint64_t level_bytes(uint32_t object, int level) const;
  ResidencyPolicy policy() const { return policy_; }
  uint64_t budget_bytes() const { return budget_; }
  size_t objects() const { return level_count_.size(); }

  // rt.residency.* of an end_frame(); loaded bytes as writes of MemoryClient::rt.
  static void publish(const ResidencyFrame& frame, Stats& stats);
  static void record(const ResidencyFrame& frame, MemoryLedger& ledger);

 private:
  size_t unit(uint32_t object, int level) const { return size_t(object) * kLodLevels + size_t(level); }
  bool load(size_t unit);  // marks resident; true if this call loaded it
  int select_slow(uint32_t object, int wanted, bool& substituted);
  // Bits are only ever set during a frame: OR is order-independent, so any thread count leaves
  // the same registers.
  static void mark(std::vector<std::atomic<uint64_t>>& bits, size_t i) {
    if (!((bits[i / 64].load(std::memory_order_relaxed) >> (i % 64)) & 1u))
      bits[i / 64].fetch_or(uint64_t(1) << (i % 64), std::memory_order_relaxed);
  }
  static bool test(const std::vector<std::atomic<uint64_t>>& bits, size_t i) {
    return (bits[i / 64].load(std::memory_order_relaxed) >> (i % 64)) & 1u;
  }

  ResidencyPolicy policy_;
  uint64_t budget_;
  uint64_t base_bytes_ = 0;
  std::vector<uint32_t> level_count_;                           // per object
  std::vector<uint64_t> bytes_;                                 // per unit
  std::unique_ptr<std::atomic<uint8_t>[]> resident_;            // per unit
  std::vector<uint64_t> last_used_;                             // per unit: frame number + 1, 0 = never
  std::vector<std::atomic<uint64_t>> used_bits_, wanted_bits_;  // objects x kLodLevels bits
  std::atomic<uint64_t> resident_bytes_{0}, peak_bytes_{0};
  std::atomic<uint64_t> stall_loads_{0}, stall_bytes_{0};
  uint64_t frame_ = 0;
};

// The config's rt section: the budget in bytes, the policy, and the LOD settings it implies
// (lod on/off, jitter, the diffuse bias, shadow rays' forced level) with `residency` attached.
uint64_t residency_budget_bytes(const RtConfig& config);
ResidencyPolicy residency_policy(const RtConfig& config);
LodSettings lod_settings(const RtConfig& config, Residency* residency);

}  // namespace tessera::rt
