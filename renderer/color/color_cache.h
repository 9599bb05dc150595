// The colour cache between the raster back end and memory: set-associative with LRU
// replacement. A line holds one plane of one 8x4 tile (128 bytes) or one 4x4 half of it
// (64 bytes); which data a line holds is the caller's key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::color {

struct ColorCacheGeometry {
  int size_bytes = 16384;  // capacity
  int line_bytes = 64;     // 64: half a plane of a tile; 128: a whole plane
  int ways = 4;            // associativity

  int lines() const { return size_bytes / line_bytes; }
  int sets() const { return lines() / ways; }
};

class ColorCache {
 public:
  static constexpr uint64_t kNoLine = ~uint64_t(0);

  explicit ColorCache(const ColorCacheGeometry& geometry);

  // Looks the key up; a hit refreshes its LRU position. Inline: it runs for most quads.
  bool lookup(uint64_t key) {
    if (key == mru_) return true;
    Way* way = &ways_[set_of(key) * size_t(geometry_.ways)];
    for (Way* const end = way + geometry_.ways; way != end; ++way) {
      if (way->key == key) {
        way->last_use = ++clock_;
        mru_ = key;
        return true;
      }
    }
    return false;
  }
  // A hit on a way known to hold its key: what lookup does on that hit.
  void touch(int way) {
    Way& w = ways_[size_t(way)];
    if (w.key == mru_) return;
    w.last_use = ++clock_;
    mru_ = w.key;
  }
  // Hits on `count` (1..kMax) lines in this order, each way (1 + the way) known to hold its
  // key: what touch() on each would do, without a branch. Only the first can be the most recent
  // line (the others follow it and are distinct), and the most recent line's last use is the
  // clock, so "refresh unless most recent" is "advance the clock unless most recent, then
  // stamp". Slots past `count` stamp a spare way that holds no key, leaving the clock as it is.
  template <int kMax>
  void touch_lines(const int32_t* ways, int count) {
    Way* const all = ways_.data();
    const size_t spare = ways_.size() - 1;
    Way& first = all[size_t(ways[0] - 1)];
    uint64_t clock = clock_ + uint64_t(first.key != mru_);
    first.last_use = clock;
    uint64_t mru = first.key;
    for (int k = 1; k < kMax; ++k) {
      const bool touched = k < count;
      Way& w = all[touched ? size_t(ways[k] - 1) : spare];
      clock += uint64_t(touched);
      w.last_use = clock;
      mru = touched ? w.key : mru;
    }
    clock_ = clock;
    mru_ = mru;
  }
  bool contains(uint64_t key) const;
  // The line a new key would displace: the least recently used of a full set, or kNoLine
  // when its set has a free way.
  uint64_t victim_for(uint64_t key) const;
  // Places a key that missed, displacing victim_for(key). Returns the displaced key or kNoLine.
  uint64_t insert(uint64_t key);
  // The way a missing key would take: a free way of its set, else the least recently used one
  // (whose key is victim_for's). A caller evicting that way's key, then placing the new key
  // there with place(), does what victim_for and insert do with one search of the set (which
  // free way a key takes changes no later decision: only the use order does).
  int replacement_way(uint64_t key) { return int(&way_for(key) - ways_.data()); }
  uint64_t key_at(int way) const { return ways_[size_t(way)].key; }
  void place(int way, uint64_t key) {
    ways_[size_t(way)] = Way{key, ++clock_};
    mru_ = key;
  }
  // Drops a key if present.
  void erase(uint64_t key);
  // Drops the key held by `way`. A key stays in the way place() put it in until erased, so a
  // caller that notes the way can refresh (touch) and erase the line without a search.
  void erase_way(int way) {
    if (ways_[size_t(way)].key == mru_) mru_ = kNoLine;
    ways_[size_t(way)] = Way{};
  }
  // Resident keys, least recently used first (for the final flush).
  std::vector<uint64_t> resident_lru_order() const;

 private:
  struct Way {
    uint64_t key = kNoLine;
    uint64_t last_use = 0;
  };
  Way& way_for(uint64_t key);
  size_t set_of(uint64_t key) const {
    // Mix the key so neighbouring tiles and planes spread over the sets; multiply-shift range
    // reduction of the high bits: no division per access.
    const uint64_t h = key * 0x9e3779b97f4a7c15ull;
    return size_t(((h >> 32) * sets_) >> 32);
  }
  ColorCacheGeometry geometry_;
  uint64_t sets_;          // max(1, sets)
  std::vector<Way> ways_;  // sets x ways, then a spare that never holds a key (touch_lines)
  uint64_t clock_ = 0;
  // The most recently used resident key (kNoLine if none): a quad's next write usually hits
  // it, and refreshing the newest line changes no LRU order, so that hit needs no search.
  uint64_t mru_ = kNoLine;
};

}  // namespace tessera::color
