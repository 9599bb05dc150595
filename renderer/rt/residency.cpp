// Residency manager for LOD levels: all resident, demand loading, lazy substitution with the
// used/wanted bit registers (tessera/rt_residency.h, docs/rt.md).
#include "tessera/rt_residency.h"

#include <algorithm>

#include "rt/bvh_layout.h"
#include "tessera/config.h"
#include "tessera/error.h"
#include "tessera/memory_ledger.h"
#include "tessera/stats.h"

namespace tessera::rt {

const char* residency_policy_name(ResidencyPolicy policy) { return choice_name(policy).data(); }

Residency::Residency(const AccelerationStructure& as, ResidencyPolicy policy, uint64_t budget_bytes)
    : policy_(policy), budget_(budget_bytes) {
  const AccelerationStructure::Layout& layout = as.layout();
  for (const LodObject& object : layout.lod_objects) level_count_.push_back(object.level_count);
  const size_t units = level_count_.size() * kLodLevels;
  bytes_.assign(units, 0);
  last_used_.assign(units, 0);
  resident_ = std::make_unique<std::atomic<uint8_t>[]>(units);
  used_bits_ = std::vector<std::atomic<uint64_t>>((units + 63) / 64);
  wanted_bits_ = std::vector<std::atomic<uint64_t>>((units + 63) / 64);
  std::vector<uint8_t> lod_mesh(layout.meshes.size(), 0);
  for (size_t o = 0; o < layout.lod_objects.size(); ++o) {
    const LodObject& object = layout.lod_objects[o];
    for (uint32_t l = 0; l < object.level_count; ++l) {
      bytes_[unit(uint32_t(o), int(l))] = layout.mesh_bytes(object.mesh[l]);
      lod_mesh[object.mesh[l]] = 1;
    }
  }
  // Base: the top level with its instance and LOD records, and every mesh that is no LOD level.
  base_bytes_ = layout.top.bytes() + layout.instances.size() * sizeof(InstanceRecord) +
                layout.lod_records.size() * sizeof(LodRecord);
  for (size_t m = 0; m < layout.meshes.size(); ++m)
    if (!lod_mesh[m] && !layout.meshes[m].empty()) base_bytes_ += layout.mesh_bytes(uint32_t(m));
  uint64_t resident = base_bytes_;
  for (size_t o = 0; o < level_count_.size(); ++o) {
    const uint32_t n = level_count_[o];
    for (uint32_t l = 0; l < n; ++l) {
      // All resident: everything before the first frame. Lazy: the coarsest level of each
      // object stays resident (pinned), so a substitute always exists. Demand: nothing.
      const bool in = policy == ResidencyPolicy::all_resident || (policy == ResidencyPolicy::lazy && l + 1 == n);
      resident_[unit(uint32_t(o), int(l))].store(in ? 1 : 0);
      if (in) resident += bytes_[unit(uint32_t(o), int(l))];
    }
  }
  resident_bytes_ = resident;
  peak_bytes_ = resident;
}

uint64_t Residency::level_bytes(uint32_t object, int level) const {
  if (object >= level_count_.size() || level < 0 || level >= kLodLevels) return 0;
  return bytes_[unit(object, level)];
}

bool Residency::resident(uint32_t object, int level) const {
  if (object >= level_count_.size() || level < 0 || uint32_t(level) >= level_count_[object]) return false;
  return resident_[unit(object, level)].load(std::memory_order_relaxed) != 0;
}
bool Residency::used(uint32_t object, int level) const {
  if (object >= level_count_.size() || level < 0 || level >= kLodLevels) return false;
  return test(used_bits_, unit(object, level));
}
bool Residency::wanted(uint32_t object, int level) const {
  if (object >= level_count_.size() || level < 0 || level >= kLodLevels) return false;
  return test(wanted_bits_, unit(object, level));
}

bool Residency::load(size_t u) {
  if (resident_[u].exchange(1) != 0) return false;
  const uint64_t now = resident_bytes_.fetch_add(bytes_[u]) + bytes_[u];
  uint64_t peak = peak_bytes_.load();
  while (now > peak && !peak_bytes_.compare_exchange_weak(peak, now)) {
  }
  return true;
}

int Residency::select_slow(uint32_t object, int wanted, bool& substituted) {
  substituted = false;
  TS_CHECK(object < level_count_.size() && wanted >= 0 && uint32_t(wanted) < level_count_[object],
           "rt: LOD selection out of range");
  const size_t u = unit(object, wanted);
  if (policy_ == ResidencyPolicy::demand) {
    // Page fault: the ray waits for the load. Each level loads once, so the count is the same
    // whichever ray (thread) faults first.
    if (!resident_[u].load(std::memory_order_relaxed) && load(u)) {
      stall_loads_.fetch_add(1, std::memory_order_relaxed);
      stall_bytes_.fetch_add(bytes_[u], std::memory_order_relaxed);
    }
  }
  if (resident_[u].load(std::memory_order_relaxed)) {
    mark(used_bits_, u);
    return wanted;
  }
  // Lazy substitution: a coarser resident level first, else a finer one; the wanted level is
  // marked for loading after the frame.
  mark(wanted_bits_, u);
  const int n = int(level_count_[object]);
  int use = -1;
  for (int l = wanted + 1; l < n && use < 0; ++l)
    if (resident_[unit(object, l)].load(std::memory_order_relaxed)) use = l;
  for (int l = wanted - 1; l >= 0 && use < 0; --l)
    if (resident_[unit(object, l)].load(std::memory_order_relaxed)) use = l;
  if (use < 0) return -1;
  mark(used_bits_, unit(object, use));
  substituted = true;
  return use;
}

ResidencyFrame Residency::end_frame() {
  ResidencyFrame f;
  f.frame = frame_;
  f.budget_bytes = budget_;
  const size_t units = bytes_.size();
  f.needed_bytes = base_bytes_;
  for (size_t u = 0; u < units; ++u) {
    const bool is_used = test(used_bits_, u), is_wanted = test(wanted_bits_, u);
    f.counts[ResidencyCounters::used_levels] += is_used;
    f.counts[ResidencyCounters::wanted_levels] += is_wanted;
    if (is_used || is_wanted) f.needed_bytes += bytes_[u];
    if (is_used) last_used_[u] = frame_ + 1;
  }
  f.counts[ResidencyCounters::stall_loads] = stall_loads_.exchange(0);
  f.counts[ResidencyCounters::stall_bytes] = stall_bytes_.exchange(0);
  // Loads: the demand loads of the frame, then the lazy ones after it.
  uint64_t& loads = f.counts[ResidencyCounters::loads];
  uint64_t& loaded_bytes = f.counts[ResidencyCounters::loaded_bytes];
  loads = f.counts[ResidencyCounters::stall_loads];
  loaded_bytes = f.counts[ResidencyCounters::stall_bytes];
  auto pinned = [&](size_t u) {
    return policy_ == ResidencyPolicy::lazy && u % kLodLevels + 1 == level_count_[u / kLodLevels];
  };
  // Least recently used resident level that this frame neither used nor wanted; deterministic
  // (ties by unit index).
  auto victim = [&]() -> size_t {
    size_t best = units;
    for (size_t u = 0; u < units; ++u) {
      if (!resident_[u].load() || pinned(u) || test(used_bits_, u) || test(wanted_bits_, u)) continue;
      if (best == units || last_used_[u] < last_used_[best]) best = u;
    }
    return best;
  };
  auto evict = [&](size_t u) {
    resident_[u].store(0);
    resident_bytes_.fetch_sub(bytes_[u]);
    ++f.counts[ResidencyCounters::evictions];
  };
  if (policy_ == ResidencyPolicy::lazy) {
    // Next-frame loading of the wanted levels, finest first within an object, within budget.
    for (size_t u = 0; u < units; ++u) {
      if (!test(wanted_bits_, u) || resident_[u].load()) continue;
      while (resident_bytes_.load() + bytes_[u] > budget_) {
        const size_t v = victim();
        if (v == units) break;
        evict(v);
      }
      if (resident_bytes_.load() + bytes_[u] > budget_) {
        ++f.counts[ResidencyCounters::deferred];
        continue;
      }
      load(u);
      ++loads;
      loaded_bytes += bytes_[u];
    }
  } else if (policy_ == ResidencyPolicy::demand) {
    // Loads happened during the frame; trim back to the budget before the next one.
    while (resident_bytes_.load() > budget_) {
      const size_t v = victim();
      if (v == units) break;
      evict(v);
    }
  }
  for (auto& w : used_bits_) w.store(0);
  for (auto& w : wanted_bits_) w.store(0);
  f.resident_bytes = resident_bytes_.load();
  f.peak_bytes = std::max(peak_bytes_.load(), f.resident_bytes);
  peak_bytes_ = f.resident_bytes;
  ++frame_;
  return f;
}

void Residency::publish(const ResidencyFrame& f, Stats& stats) {
  f.counts.publish(stats);
  stats.set("rt.residency.frame", f.frame);
  stats.set("rt.residency.resident_bytes", f.resident_bytes);
  stats.set("rt.residency.peak_bytes", f.peak_bytes);
  stats.set("rt.residency.needed_bytes", f.needed_bytes);
  stats.set("rt.residency.budget_bytes", f.budget_bytes);
}

void Residency::record(const ResidencyFrame& f, MemoryLedger& ledger) {
  ledger.add_write(MemoryClient::rt, f.counts[ResidencyCounters::loaded_bytes]);
}

uint64_t residency_budget_bytes(const RtConfig& config) { return uint64_t(config.budget_mib * 1024.0 * 1024.0); }

ResidencyPolicy residency_policy(const RtConfig& config) { return config.residency; }

LodSettings lod_settings(const RtConfig& config, Residency* residency) {
  LodSettings s;
  s.enabled = config.lod;
  s.jitter = float(config.lod_jitter);
  s.type_bias[size_t(RayType::diffuse)] = float(config.diffuse_lod_bias);
  s.forced_level[size_t(RayType::shadow)] = config.shadow_lod_level < 0 ? kLodByDistance : config.shadow_lod_level;
  s.residency = residency;
  return s;
}

}  // namespace tessera::rt
