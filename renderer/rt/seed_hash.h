// The ray-tracing unit's random numbers: SplitMix64's finaliser over a seed made from the pixel,
// sample or ray index, never from the thread, so LOD jitter, bounce directions and the bench
// workload are the same for any thread count.
#pragma once

#include <cstdint>

namespace tessera::rt {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The top 24 bits of a hash as a float in [0, 1) (exact: 24 bits fit the significand).
inline float unit_float(uint64_t hash) { return float(hash >> 40) * 0x1p-24f; }

}  // namespace tessera::rt
