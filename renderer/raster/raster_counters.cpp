#include "raster/raster_counters.h"

#include "tessera/stats.h"

namespace tessera {

namespace {
constexpr const char* kKeys[] = {
#define TESSERA_X(name, key, desc) key,
    TESSERA_RASTER_COUNTERS(TESSERA_X)
#undef TESSERA_X
};
constexpr const char* kDescriptions[] = {
#define TESSERA_X(name, key, desc) desc,
    TESSERA_RASTER_COUNTERS(TESSERA_X)
#undef TESSERA_X
};
}  // namespace

const char* RasterCounters::key(Id id) { return kKeys[id]; }
const char* RasterCounters::description(Id id) { return kDescriptions[id]; }

void RasterCounters::publish(Stats& stats) const {
  for (int i = 0; i < count; ++i) stats.set(kKeys[i], v[size_t(i)]);
}

}  // namespace tessera
