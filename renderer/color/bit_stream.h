// Bit-granular writer and reader over a fixed word array: how the codecs pack palettes,
// per-pixel modes and per-sample indices into the index bits or a compressed plane.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>

namespace tessera::color {

class BitWriter {
 public:
  BitWriter(uint64_t* words, int capacity_bits) : words_(words), capacity_(capacity_bits) {}
  // Appends the low `bits` (0..64) bits of value; returns false (writing nothing) when they
  // would not fit.
  bool put(uint64_t value, int bits) {
    if (bits == 0) return true;
    if (used_ + bits > capacity_) return false;
    // Whole-word writes: at most two words are touched (bits <= 64).
    const uint64_t v = bits == 64 ? value : value & ((uint64_t(1) << bits) - 1);
    const int word = used_ / 64, shift = used_ % 64;
    const uint64_t low_mask = bits == 64 ? ~uint64_t(0) : ((uint64_t(1) << bits) - 1);
    words_[word] = (words_[word] & ~(low_mask << shift)) | (v << shift);
    if (shift + bits > 64) {
      const int spill = shift + bits - 64;
      const uint64_t high_mask = (uint64_t(1) << spill) - 1;
      words_[word + 1] = (words_[word + 1] & ~high_mask) | (v >> (64 - shift));
    }
    used_ += bits;
    return true;
  }
  int used() const { return used_; }

 private:
  uint64_t* words_;
  int capacity_;
  int used_ = 0;
};

// Reads what a BitWriter packed. get() is unchecked so the decoders' per-pixel loops stay as
// fast as the writer's: a decoder handed untrusted bits first checks, once per plane or tile,
// that the sizes its header announces fit the payload (fits()), and only then reads.
class BitReader {
 public:
  BitReader(const uint64_t* words, int capacity_bits) : words_(words), capacity_(capacity_bits) {}
  uint64_t get(int bits) {
    if (bits == 0) return 0;
    assert(used_ + bits <= capacity_ && "decoder read past its payload: validate sizes before decoding");
    const int word = used_ / 64, shift = used_ % 64;
    uint64_t v = words_[word] >> shift;
    if (shift + bits > 64) v |= words_[word + 1] << (64 - shift);
    used_ += bits;
    return bits == 64 ? v : v & ((uint64_t(1) << bits) - 1);
  }
  int used() const { return used_; }
  // Whether `bits` more bits lie inside the payload.
  bool fits(int64_t bits) const { return bits >= 0 && used_ + bits <= capacity_; }

 private:
  const uint64_t* words_;
  int capacity_;
  int used_ = 0;
};

}  // namespace tessera::color
