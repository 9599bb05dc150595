// A unit's counters, declared once as an X-macro list X(name, stats key, meaning) and turned
// into an id enum, key and description tables, and a plain array: units count into their own
// instance in hot loops (no locks, no string lookups) and publish once per frame.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "tessera/stats.h"

namespace tessera {

#define TESSERA_COUNTER_ENUM(name, key, desc) name,
#define TESSERA_COUNTER_KEY(name, key, desc) key,
#define TESSERA_COUNTER_DESC(name, key, desc) desc,

// Declares `struct IdsName` with `enum Id {..., count}` and the key/description tables of LIST.
// clang-format off
#define TESSERA_DEFINE_COUNTER_IDS(IdsName, LIST)                                                 \
  struct IdsName {                                                                               \
    enum Id : int { LIST(TESSERA_COUNTER_ENUM) count };                                          \
    static constexpr const char* kKeys[] = {LIST(TESSERA_COUNTER_KEY)};                          \
    static constexpr const char* kDescriptions[] = {LIST(TESSERA_COUNTER_DESC)};                 \
  }
// clang-format on

template <typename Ids>
struct CounterSet : Ids {
  using Id = typename Ids::Id;
  std::array<uint64_t, Ids::count> v{};

  uint64_t& operator[](Id id) { return v[size_t(id)]; }
  uint64_t operator[](Id id) const { return v[size_t(id)]; }
  void merge(const CounterSet& o) {
    for (size_t i = 0; i < v.size(); ++i) v[i] += o.v[i];
  }
  // Sets every counter under its stats key.
  void publish(Stats& stats) const {
    for (size_t i = 0; i < v.size(); ++i) stats.set(Ids::kKeys[i], v[i]);
  }
  static const char* key(Id id) { return Ids::kKeys[size_t(id)]; }
  static const char* description(Id id) { return Ids::kDescriptions[size_t(id)]; }
};

}  // namespace tessera
