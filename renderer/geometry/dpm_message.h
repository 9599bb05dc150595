// The distributed patch message (DPM): what a TEFE's DPM generator broadcasts over the
// tessellation redistribution bus (TRB) to every TEBE at the end of a batch, and the patch
// record the off-chip baseline writes to memory instead. docs/gpp.md gives the flows.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/tessellator.h"

namespace tessera {

// A patch handle: the index of the patch's on-chip control data (its tessellation factors,
// domain, spacing and control points), which every TEBE can read. 4 bytes:
//   bytes 0-3  uint32 index into the on-chip patch control store (application order)
struct PatchHandle {
  uint32_t index = 0;
};
static_assert(sizeof(PatchHandle) == 4, "a patch handle is one 32-bit index");

// DPM header on the TRB, 4 bytes, followed on the wire by `count` PatchHandles:
//   bytes 0-1  uint16 handle count (0 when the whole batch was culled; <= DPM buffer depth)
//   byte  2    uint8 GPP ID of the transmitting GPP (0..15)
//   byte  3    reserved, 0
struct DpmHeader {
  uint16_t count = 0;
  uint8_t sender = 0;
  uint8_t reserved = 0;
};
static_assert(sizeof(DpmHeader) == 4, "DPM header: 16-bit count, 8-bit sender, 8 bits reserved");

// One DPM: the header and the time-ordered (application submission order) handle list.
// Wire size: 4 + 4 * count bytes.
struct DpmMessage {
  DpmHeader header;
  std::vector<PatchHandle> handles;

  uint64_t wire_bytes() const { return sizeof(DpmHeader) + uint64_t(header.count) * sizeof(PatchHandle); }
};

// Most GPPs a DPM sender ID and Next-TEBE can name.
constexpr int kMaxGpps = 16;

// A patch record as the off-chip baseline writes it to memory after the cull, before any GPP
// tessellates the patch; it is read back by the GPP that tessellates it. 32 bytes, followed in
// memory by the patch's control-point payload (GppArrayConfig::patch_payload_bytes):
//   bytes  0-23  TessFactors (outer[4], inner[2], float)
//   bytes 24-27  uint32 patch id (application order)
//   byte  28     TessDomain
//   byte  29     TessSpacing
//   bytes 30-31  reserved, 0
struct OffChipPatchRecord {
  TessFactors factors;
  uint32_t patch_id = 0;
  TessDomain domain = TessDomain::kQuad;
  TessSpacing spacing = TessSpacing::kEqual;
  uint16_t reserved = 0;
};
static_assert(sizeof(OffChipPatchRecord) == 32, "off-chip patch record header: factors, id, domain, spacing");

}  // namespace tessera
