// The array of N geometry processing pipelines (GPPs) around the tessellator: per GPP a TEFE
// (patch cull, DPM generator with its buffer) and a TEBE (DPM processor with Next-TEBE,
// tessellator), joined by the TRB broadcast bus, with the output-enable token that keeps batches
// and output in application order. Runs a patch stream through one of three designs (on-chip
// redistribution per the spec, no redistribution, redistribution through off-chip memory) and
// returns the output stream, the counters, the memory ledger and the modelled timing.
// docs/gpp.md gives the flows, the message layouts and the cost model.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "geometry/dpm_message.h"
#include "geometry/gpp_cost_model.h"
#include "geometry/gpp_counters.h"
#include "tessera/config.h"
#include "tessera/memory_ledger.h"
#include "tessera/tessellator.h"

namespace tessera {

class Stats;

// One patch of the input stream, in application order. Its control data (factors, domain,
// spacing) sits on chip; the TEFE and TEBEs see it through its PatchHandle.
struct GppPatch {
  TessDomain domain = TessDomain::kQuad;
  TessSpacing spacing = TessSpacing::kEqual;
  TessFactors factors;
  uint32_t id = 0;            // application-visible patch id, carried to the output
  uint32_t extra_cycles = 0;  // optional per-patch cost (e.g. domain shading) charged to its TEBE
};

// How patches reach the tessellators.
enum class GppDesign : uint8_t {
  kOnChip,            // the spec: DPMs over the TRB, patches round-robin over all TEBEs
  kNoRedistribution,  // each GPP tessellates the patches of its own batches
  kOffChip,           // surviving patches written to memory, read back round-robin by all GPPs
};

std::string_view gpp_design_name(GppDesign design);  // "onchip", "noredist", "offchip"

std::string_view gpp_policy_name(GppPolicy policy);  // "roundrobin", "leastloaded"

struct GppArrayConfig {
  int gpp_count = 1;          // N, 1..16; GPP IDs 0..N-1 by position, cyclic
  int batch_size = 32;        // patches per input batch (the last batch may be shorter)
  int dpm_buffer_depth = 64;  // handles a DPM buffer holds; must be >= batch_size
  GppPolicy policy = GppPolicy::kRoundRobin;
  int reset_gpp = 0;                   // reset value of Next-TEBE and the GPP that owns batch 0 and
                                       // starts with output enable
  uint32_t patch_payload_bytes = 192;  // off-chip design: control points per patch record
                                       // (16 bicubic control points x 3 floats)
  bool build_primitives = true;        // true: tessellate() every patch and return the primitives;
                                       // false: tess_counts() only (same counts, no output geometry)
  GppCostRates rates;
};

// One tessellated patch as it leaves the array toward the raster side.
struct GppPatchOutput {
  uint32_t patch_id = 0;
  uint8_t gpp = 0;               // GPP whose TEBE tessellated it
  TessCounts counts;             // points and primitives
  TessellatedPatch tessellated;  // empty unless build_primitives
};

// One DPM as the TEBEs saw it, for checking the Next-TEBE rule.
struct DpmTraceEntry {
  DpmMessage message;
  uint8_t next_before = 0;  // Next-TEBE of every TEBE when the DPM arrived
  uint8_t next_after = 0;   // Next-TEBE every TEBE agreed on after it
};

struct GppRunResult {
  GppDesign design = GppDesign::kOnChip;
  std::vector<GppPatchOutput> output;               // application order, as the raster side receives it
  std::vector<std::vector<uint32_t>> tebe_patches;  // per GPP: patch ids its TEBE received, in order
  std::vector<DpmTraceEntry> dpm_trace;             // on-chip design: every DPM on the TRB, in bus order
  std::vector<GppCounters> per_gpp;                 // one per GPP
  GppDesignCounters totals;                         // shared: bus, memory, makespan
  MemoryLedger ledger;                              // off-chip redistribution traffic (client tessellation)
  GppTiming timing;                                 // cost model applied to the counters

  // Publishes the counters under geometry.gpp.<design>. (totals) and
  // geometry.gpp.<design>.gpp<i>. (per GPP), plus the modelled load balance.
  void publish(Stats& stats) const;
};

// Runs the patch stream through the GPP array in one design. Throws tessera::Error for an
// invalid configuration (N outside 1..16, batch size < 1, buffer shallower than a batch).
GppRunResult run_gpp_array(GppDesign design, std::span<const GppPatch> patches, const GppArrayConfig& config);

// The GPP of every primitive of the output stream, in order (for a --gpp-map overlay).
std::vector<uint8_t> primitive_gpps(std::span<const GppPatchOutput> output);

}  // namespace tessera
