// GPP-array counters, declared once. Each GPP counts into its own GppCounters; the design as a
// whole (bus, memory, modelled time) into one GppDesignCounters. Keys are relative: the array
// publishes them under geometry.gpp.<design>.gpp<i>. and geometry.gpp.<design>.
#pragma once

#include "tessera/counter_set.h"

namespace tessera {

// X(name, stats key, meaning)
// clang-format off
#define TESSERA_GPP_COUNTERS(X)                                                                       \
  X(patches_received, "patches.received", "patch handles this GPP's TEFE received in its batches")   \
  X(patches_culled, "patches.culled", "patches this TEFE culled (outer level <= 0 or NaN)")           \
  X(patches_tessellated, "patches.tessellated", "patches this GPP's TEBE tessellated")               \
  X(domain_points, "domain_points", "domain points this TEBE produced")                              \
  X(primitives, "primitives", "triangles (line segments for isolines) this TEBE produced")           \
  X(patch_cost_cycles, "patch_cost_cycles", "per-patch extra cycles of the patches it tessellated")  \
  X(dpm_sent, "dpm.sent", "DPMs this TEFE broadcast on the TRB")                                     \
  X(dpm_processed, "dpm.processed", "DPMs this TEBE's DPM processor handled (every DPM on the TRB)")  \
  X(trb_bytes, "trb.bytes_sent", "TRB bytes this TEFE broadcast (4 + 4 per handle per DPM)")         \
  X(offchip_bytes_written, "offchip.bytes_written", "patch records this TEFE wrote to memory (off-chip design)") \
  X(offchip_bytes_read, "offchip.bytes_read", "patch records this TEBE read back (off-chip design)") \
  X(tefe_cycles, "cycles.tefe", "modelled TEFE cycles: cull, DPM generation, record writes")         \
  X(busy_cycles, "cycles.busy", "modelled TEBE busy cycles: DPM processing and tessellation")        \
  X(idle_cycles, "cycles.idle", "modelled TEBE idle cycles: makespan minus busy")
// clang-format on

TESSERA_DEFINE_COUNTER_IDS(GppCounterIds, TESSERA_GPP_COUNTERS);
using GppCounters = CounterSet<GppCounterIds>;

// X(name, stats key, meaning)
// clang-format off
#define TESSERA_GPP_DESIGN_COUNTERS(X)                                                              \
  X(patches, "patches", "patches in the input stream")                                             \
  X(batches, "batches", "batches in the input stream")                                             \
  X(dpm_messages, "trb.messages", "DPMs broadcast on the TRB")                                     \
  X(dpm_empty, "trb.empty_messages", "DPMs with no handle (the whole batch was culled)")          \
  X(trb_bytes, "trb.bytes", "bytes broadcast on the TRB")                                          \
  X(offchip_bytes_written, "offchip.bytes_written", "bytes written to memory for redistribution")  \
  X(offchip_bytes_read, "offchip.bytes_read", "bytes read from memory for redistribution")         \
  X(trb_cycles, "cycles.trb", "modelled TRB cycles (one shared broadcast bus)")                    \
  X(offchip_cycles, "cycles.offchip", "modelled memory cycles for redistribution traffic")         \
  X(makespan_cycles, "cycles.makespan", "modelled cycles to tessellate the whole stream")
// clang-format on

TESSERA_DEFINE_COUNTER_IDS(GppDesignCounterIds, TESSERA_GPP_DESIGN_COUNTERS);
using GppDesignCounters = CounterSet<GppDesignCounterIds>;

}  // namespace tessera
