#include "color/color_cache.h"

#include <algorithm>

namespace tessera::color {

ColorCache::ColorCache(const ColorCacheGeometry& geometry)
    : geometry_(geometry),
      sets_(uint64_t(std::max(1, geometry.sets()))),
      ways_(size_t(std::max(1, geometry.sets())) * size_t(std::max(1, geometry.ways)) + 1) {}

bool ColorCache::contains(uint64_t key) const {
  const size_t base = set_of(key) * size_t(geometry_.ways);
  for (int w = 0; w < geometry_.ways; ++w) {
    if (ways_[base + size_t(w)].key == key) return true;
  }
  return false;
}

uint64_t ColorCache::victim_for(uint64_t key) const {
  const size_t base = set_of(key) * size_t(geometry_.ways);
  const Way* victim = &ways_[base];
  for (int w = 0; w < geometry_.ways; ++w) {
    const Way& way = ways_[base + size_t(w)];
    if (way.key == kNoLine) return kNoLine;
    if (way.last_use < victim->last_use) victim = &way;
  }
  return victim->key;
}

ColorCache::Way& ColorCache::way_for(uint64_t key) {
  // A free way of the key's set (the first), else its least recently used one. A free way's
  // last use is 0 and a held one's at least 1 (the clock advances before every stamp), so both
  // are the first way of least last use: one pass with no branch on the ways' contents.
  const size_t base = set_of(key) * size_t(geometry_.ways);
  size_t victim = base;
  uint64_t oldest = ways_[base].last_use;
  for (size_t w = base + 1; w < base + size_t(geometry_.ways); ++w) {
    const bool older = ways_[w].last_use < oldest;
    victim = older ? w : victim;
    oldest = older ? ways_[w].last_use : oldest;
  }
  return ways_[victim];
}

uint64_t ColorCache::insert(uint64_t key) {
  Way& way = way_for(key);
  const uint64_t displaced = way.key;
  way = Way{key, ++clock_};
  mru_ = key;
  return displaced;
}

void ColorCache::erase(uint64_t key) {
  if (key == mru_) mru_ = kNoLine;
  const size_t base = set_of(key) * size_t(geometry_.ways);
  for (int w = 0; w < geometry_.ways; ++w) {
    Way& way = ways_[base + size_t(w)];
    if (way.key == key) way = Way{};
  }
}

std::vector<uint64_t> ColorCache::resident_lru_order() const {
  std::vector<const Way*> resident;
  for (const Way& w : ways_) {
    if (w.key != kNoLine) resident.push_back(&w);
  }
  std::sort(resident.begin(), resident.end(), [](const Way* a, const Way* b) { return a->last_use < b->last_use; });
  std::vector<uint64_t> keys;
  keys.reserve(resident.size());
  for (const Way* w : resident) keys.push_back(w->key);
  return keys;
}

}  // namespace tessera::color
