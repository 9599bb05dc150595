#include "geometry/gpp_array.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "tessera/error.h"
#include "tessera/stats.h"

namespace tessera {
namespace {

constexpr GppDesign kDesigns[] = {GppDesign::kOnChip, GppDesign::kNoRedistribution, GppDesign::kOffChip};

// A random stream: mixed domains, spacings and levels, random culling (zero, negative or NaN
// outer level on a used edge), random per-patch costs.
std::vector<GppPatch> random_stream(std::mt19937& rng, size_t count, double cull_probability) {
  std::uniform_real_distribution<float> level(0.5f, 12.0f);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> pick3(0, 2);
  std::uniform_int_distribution<uint32_t> cost(0, 400);
  std::vector<GppPatch> patches(count);
  for (size_t i = 0; i < count; ++i) {
    GppPatch& p = patches[i];
    p.domain = TessDomain(pick3(rng));
    p.spacing = TessSpacing(pick3(rng));
    for (float& f : p.factors.outer) f = level(rng);
    for (float& f : p.factors.inner) f = level(rng);
    if (p.domain == TessDomain::kIsoline) p.factors.outer[0] = std::min(p.factors.outer[0], 4.0f);
    if (unit(rng) < cull_probability) {
      const float bad[] = {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN()};
      p.factors.outer[size_t(pick3(rng) % 2)] = bad[pick3(rng)];  // edges 0/1: used by every domain
    }
    p.id = uint32_t(1000 + i);
    p.extra_cycles = cost(rng);
  }
  return patches;
}

bool is_culled(const GppPatch& p) { return resolve_tess_factors(p.domain, p.spacing, p.factors).culled != 0; }

// The output as a flat primitive stream: patch id and the primitive's domain points.
struct FlatPrimitive {
  uint32_t patch_id;
  std::array<glm::vec3, 3> points;
  bool operator==(const FlatPrimitive& o) const { return patch_id == o.patch_id && points == o.points; }
};

std::vector<FlatPrimitive> flatten(const std::vector<GppPatchOutput>& output) {
  std::vector<FlatPrimitive> flat;
  for (const GppPatchOutput& o : output) {
    const TessellatedPatch& t = o.tessellated;
    const size_t per = t.kind == TessPrimitive::kLines ? 2 : 3;
    for (size_t i = 0; i + per <= t.indices.size(); i += per) {
      FlatPrimitive f{o.patch_id, {}};
      for (size_t k = 0; k < per; ++k) f.points[k] = t.points[t.indices[i + k]];
      flat.push_back(f);
    }
  }
  return flat;
}

TEST(GppArray, OutputMatchesSingleGppForEveryCount) {
  std::mt19937 rng(20261121);
  std::uniform_int_distribution<int> batch(1, 40);
  std::uniform_int_distribution<size_t> length(0, 90);
  for (int stream = 0; stream < 64; ++stream) {
    const std::vector<GppPatch> patches = random_stream(rng, length(rng), stream % 4 == 0 ? 0.7 : 0.25);
    GppArrayConfig cfg;
    cfg.batch_size = batch(rng);
    cfg.dpm_buffer_depth = cfg.batch_size + stream % 3;
    const std::vector<FlatPrimitive> single = flatten(run_gpp_array(GppDesign::kOnChip, patches, cfg).output);
    // The single-GPP stream is itself the application-order tessellation of the survivors.
    std::vector<GppPatchOutput> reference;
    for (const GppPatch& p : patches)
      if (!is_culled(p)) reference.push_back(GppPatchOutput{p.id, 0, {}, tessellate(p.domain, p.spacing, p.factors)});
    ASSERT_EQ(single, flatten(reference)) << "stream " << stream;
    for (int n = 1; n <= kMaxGpps; ++n) {
      cfg.gpp_count = n;
      cfg.reset_gpp = (stream + n) % n;
      for (GppDesign d : kDesigns) {
        cfg.policy = (stream + n) % 2 == 0 ? GppPolicy::kRoundRobin : GppPolicy::kLeastLoaded;
        const GppRunResult r = run_gpp_array(d, patches, cfg);
        EXPECT_EQ(flatten(r.output), single)
            << "stream " << stream << ", N " << n << ", " << gpp_design_name(d) << ", " << gpp_policy_name(cfg.policy);
        // The GPP tag of every patch is the TEBE that received it.
        for (const GppPatchOutput& o : r.output) {
          ASSERT_LT(o.gpp, n);
          const auto& ids = r.tebe_patches[o.gpp];
          EXPECT_NE(std::find(ids.begin(), ids.end(), o.patch_id), ids.end());
        }
      }
    }
  }
}

TEST(GppArray, CulledPatchesNeverReachATebe) {
  std::mt19937 rng(7);
  const std::vector<GppPatch> patches = random_stream(rng, 400, 0.4);
  std::set<uint32_t> culled;
  for (const GppPatch& p : patches)
    if (is_culled(p)) culled.insert(p.id);
  ASSERT_GT(culled.size(), 100u);
  for (GppDesign d : kDesigns) {
    GppArrayConfig cfg;
    cfg.policy = d == GppDesign::kOffChip ? GppPolicy::kLeastLoaded : GppPolicy::kRoundRobin;
    cfg.gpp_count = 5;
    cfg.batch_size = 7;
    cfg.build_primitives = false;
    const GppRunResult r = run_gpp_array(d, patches, cfg);
    uint64_t received = 0, culled_count = 0, tessellated = 0;
    for (size_t g = 0; g < r.per_gpp.size(); ++g) {
      received += r.per_gpp[g][GppCounters::patches_received];
      culled_count += r.per_gpp[g][GppCounters::patches_culled];
      tessellated += r.per_gpp[g][GppCounters::patches_tessellated];
      for (uint32_t id : r.tebe_patches[g]) EXPECT_EQ(culled.count(id), 0u) << gpp_design_name(d);
    }
    EXPECT_EQ(received, patches.size());
    EXPECT_EQ(culled_count, culled.size());
    EXPECT_EQ(tessellated, patches.size() - culled.size());
    for (const DpmTraceEntry& e : r.dpm_trace) {
      for (PatchHandle h : e.message.handles) EXPECT_EQ(culled.count(patches[h.index].id), 0u);
    }
  }
}

TEST(GppArray, NextTebeAdvancesByCountAndIgnoresEmptyDpms) {
  std::mt19937 rng(99);
  std::vector<GppPatch> patches = random_stream(rng, 300, 0.2);
  // Batches 3 and 4 (of 10 patches) wholly culled: two empty DPMs in a row.
  for (size_t i = 30; i < 50; ++i) patches[i].factors.outer[0] = 0.0f;
  for (int n = 1; n <= kMaxGpps; ++n) {
    GppArrayConfig cfg;
    cfg.gpp_count = n;
    cfg.batch_size = 10;
    cfg.reset_gpp = n / 2;
    cfg.build_primitives = false;
    const GppRunResult r = run_gpp_array(GppDesign::kOnChip, patches, cfg);
    ASSERT_EQ(r.dpm_trace.size(), 30u);
    EXPECT_EQ(r.dpm_trace[0].next_before, cfg.reset_gpp);
    std::vector<size_t> taken(size_t(n), 0);  // handles of each TEBE seen so far
    int empty = 0;
    for (size_t i = 0; i < r.dpm_trace.size(); ++i) {
      const DpmTraceEntry& e = r.dpm_trace[i];
      const int count = e.message.header.count;
      ASSERT_EQ(size_t(count), e.message.handles.size());
      EXPECT_EQ(e.message.header.sender, (size_t(cfg.reset_gpp) + i) % size_t(n)) << "output enable passes round-robin";
      EXPECT_EQ(int(e.next_after), (e.next_before + count) % n) << "N " << n << ", DPM " << i;
      if (count == 0) {
        EXPECT_EQ(e.next_after, e.next_before);
        ++empty;
      }
      if (i > 0) {
        EXPECT_EQ(e.next_before, r.dpm_trace[i - 1].next_after);
      }
      // Handle j went to TEBE next_before + j, cyclic, in DPM order.
      for (int j = 0; j < count; ++j) {
        const size_t g = size_t((e.next_before + j) % n);
        ASSERT_LT(taken[g], r.tebe_patches[g].size());
        EXPECT_EQ(r.tebe_patches[g][taken[g]++], patches[e.message.handles[size_t(j)].index].id);
      }
    }
    EXPECT_EQ(empty, 2);
    for (size_t g = 0; g < size_t(n); ++g) EXPECT_EQ(taken[g], r.tebe_patches[g].size());
  }
}

TEST(GppArray, DpmMessagesAndTrbBytes) {
  static_assert(sizeof(DpmHeader) == 4 && sizeof(PatchHandle) == 4);
  // 10 quads in batches of 4: survivors 3, 4, 0 (batch 2 wholly culled) -> DPMs of 16, 20, 4 bytes.
  std::vector<GppPatch> patches(10);
  for (uint32_t i = 0; i < 10; ++i) {
    patches[i].factors = TessFactors{{2, 2, 2, 2}, {2, 2}};
    patches[i].id = i;
  }
  patches[1].factors.outer[2] = -3.0f;
  patches[8].factors.outer[0] = 0.0f;
  patches[9].factors.outer[3] = std::numeric_limits<float>::quiet_NaN();
  GppArrayConfig cfg;
  cfg.gpp_count = 3;
  cfg.batch_size = 4;
  cfg.reset_gpp = 2;
  const GppRunResult r = run_gpp_array(GppDesign::kOnChip, patches, cfg);
  ASSERT_EQ(r.dpm_trace.size(), 3u);
  EXPECT_EQ(r.dpm_trace[0].message.header.sender, 2);
  EXPECT_EQ(r.dpm_trace[1].message.header.sender, 0);
  EXPECT_EQ(r.dpm_trace[2].message.header.sender, 1);
  EXPECT_EQ(r.dpm_trace[0].message.wire_bytes(), 16u);
  EXPECT_EQ(r.dpm_trace[1].message.wire_bytes(), 20u);
  EXPECT_EQ(r.dpm_trace[2].message.wire_bytes(), 4u);
  EXPECT_EQ(r.dpm_trace[0].message.handles[1].index, 2u);  // patch 1 culled, order kept
  EXPECT_EQ(r.totals[GppDesignCounters::dpm_messages], 3u);
  EXPECT_EQ(r.totals[GppDesignCounters::dpm_empty], 1u);
  EXPECT_EQ(r.totals[GppDesignCounters::trb_bytes], 40u);
  EXPECT_EQ(r.per_gpp[2][GppCounters::trb_bytes], 16u);
  EXPECT_EQ(r.per_gpp[0][GppCounters::trb_bytes], 20u);
  EXPECT_EQ(r.per_gpp[1][GppCounters::trb_bytes], 4u);
  // 7 survivors from Next-TEBE 2: GPPs 2,0,1,2,0,1,2.
  EXPECT_EQ(r.per_gpp[2][GppCounters::patches_tessellated], 3u);
  EXPECT_EQ(r.per_gpp[0][GppCounters::patches_tessellated], 2u);
  EXPECT_EQ(r.per_gpp[1][GppCounters::patches_tessellated], 2u);
  EXPECT_EQ(r.dpm_trace[2].next_after, 0);
  for (const GppCounters& c : r.per_gpp) EXPECT_EQ(c[GppCounters::dpm_processed], 3u);
  EXPECT_EQ(primitive_gpps(r.output),
            (std::vector<uint8_t>{2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2,
                                  2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2}));
}

TEST(GppArray, OnChipRedistributionHasNoOffChipTraffic) {
  std::mt19937 rng(3);
  const std::vector<GppPatch> patches = random_stream(rng, 500, 0.2);
  for (int n : {1, 4, 16}) {
    GppArrayConfig cfg;
    cfg.gpp_count = n;
    cfg.build_primitives = false;
    for (GppDesign d : {GppDesign::kOnChip, GppDesign::kNoRedistribution}) {
      const GppRunResult r = run_gpp_array(d, patches, cfg);
      EXPECT_EQ(r.ledger.total_read() + r.ledger.total_written(), 0u);
      EXPECT_EQ(r.totals[GppDesignCounters::offchip_bytes_written] + r.totals[GppDesignCounters::offchip_bytes_read],
                0u);
    }
  }
}

TEST(GppArray, OffChipBytesMatchHandComputedCase) {
  // 10 patches, 3 culled: 7 records of 32 + 192 = 224 bytes written once and read once.
  std::vector<GppPatch> patches(10);
  for (uint32_t i = 0; i < 10; ++i) {
    patches[i].domain = TessDomain::kTriangle;
    patches[i].factors = TessFactors{{3, 3, 3, 0}, {3, 0}};
    patches[i].id = i;
  }
  patches[0].factors.outer[1] = 0.0f;
  patches[4].factors.outer[2] = -1.0f;
  patches[5].factors.outer[0] = std::numeric_limits<float>::quiet_NaN();
  GppArrayConfig cfg;
  cfg.gpp_count = 4;
  cfg.batch_size = 3;
  cfg.build_primitives = false;
  const GppRunResult r = run_gpp_array(GppDesign::kOffChip, patches, cfg);
  EXPECT_EQ(r.ledger.written[size_t(MemoryClient::tessellation)], 7u * 224u);
  EXPECT_EQ(r.ledger.read[size_t(MemoryClient::tessellation)], 7u * 224u);
  EXPECT_EQ(r.ledger.total_written(), 1568u);
  EXPECT_EQ(r.ledger.total_read(), 1568u);
  EXPECT_EQ(r.totals[GppDesignCounters::offchip_bytes_written], 1568u);
  // Writers: batches {0,1,2} GPP0 (2 survivors), {3,4,5} GPP1 (1), {6,7,8} GPP2 (3), {9} GPP3 (1).
  EXPECT_EQ(r.per_gpp[0][GppCounters::offchip_bytes_written], 2u * 224u);
  EXPECT_EQ(r.per_gpp[1][GppCounters::offchip_bytes_written], 1u * 224u);
  EXPECT_EQ(r.per_gpp[2][GppCounters::offchip_bytes_written], 3u * 224u);
  EXPECT_EQ(r.per_gpp[3][GppCounters::offchip_bytes_written], 1u * 224u);
  // Readers: survivors round-robin from GPP 0: 2, 2, 2, 1.
  EXPECT_EQ(r.per_gpp[0][GppCounters::offchip_bytes_read], 2u * 224u);
  EXPECT_EQ(r.per_gpp[3][GppCounters::offchip_bytes_read], 1u * 224u);
  EXPECT_EQ(r.totals[GppDesignCounters::trb_bytes], 0u);
  // Memory time at the default 128 bytes per clock: 3136 / 128.
  EXPECT_DOUBLE_EQ(r.timing.offchip_cycles, 3136.0 / 128.0);
}

TEST(GppArray, CountsOnlyModeMatchesBuiltPrimitives) {
  std::mt19937 rng(11);
  const std::vector<GppPatch> patches = random_stream(rng, 200, 0.3);
  GppArrayConfig cfg;
  cfg.gpp_count = 6;
  cfg.batch_size = 9;
  const GppRunResult built = run_gpp_array(GppDesign::kOnChip, patches, cfg);
  cfg.build_primitives = false;
  const GppRunResult counted = run_gpp_array(GppDesign::kOnChip, patches, cfg);
  ASSERT_EQ(built.output.size(), counted.output.size());
  for (size_t i = 0; i < built.output.size(); ++i) {
    EXPECT_EQ(built.output[i].patch_id, counted.output[i].patch_id);
    EXPECT_EQ(built.output[i].counts.points, counted.output[i].counts.points);
    EXPECT_EQ(built.output[i].counts.primitives, counted.output[i].counts.primitives);
    EXPECT_TRUE(counted.output[i].tessellated.indices.empty());
  }
  EXPECT_EQ(built.per_gpp[3].v, counted.per_gpp[3].v);
}

TEST(GppArray, InvalidConfigurationThrows) {
  const std::vector<GppPatch> patches(3);
  GppArrayConfig cfg;
  cfg.gpp_count = 0;
  EXPECT_THROW(run_gpp_array(GppDesign::kOnChip, patches, cfg), Error);
  cfg.gpp_count = 17;
  EXPECT_THROW(run_gpp_array(GppDesign::kOnChip, patches, cfg), Error);
  cfg.gpp_count = 4;
  cfg.batch_size = 0;
  EXPECT_THROW(run_gpp_array(GppDesign::kOnChip, patches, cfg), Error);
  cfg.batch_size = 65;
  EXPECT_THROW(run_gpp_array(GppDesign::kOnChip, patches, cfg), Error);  // deeper than the DPM buffer
  cfg.batch_size = 8;
  cfg.reset_gpp = 4;
  EXPECT_THROW(run_gpp_array(GppDesign::kOnChip, patches, cfg), Error);
}

TEST(GppArray, PublishesPerGppAndDesignCounters) {
  std::mt19937 rng(5);
  const std::vector<GppPatch> patches = random_stream(rng, 50, 0.2);
  GppArrayConfig cfg;
  cfg.gpp_count = 2;
  cfg.build_primitives = false;
  const GppRunResult r = run_gpp_array(GppDesign::kOnChip, patches, cfg);
  Stats stats;
  r.publish(stats);
  EXPECT_EQ(stats.get_u64("geometry.gpp.onchip.patches"), 50u);
  EXPECT_EQ(stats.get_u64("geometry.gpp.onchip.gpp1.dpm.processed"), r.totals[GppDesignCounters::dpm_messages]);
  EXPECT_EQ(stats.get_u64("geometry.gpp.onchip.all.patches.received"), 50u);
  EXPECT_EQ(stats.get_u64("geometry.gpp.onchip.gpp0.cycles.busy"), r.per_gpp[0][GppCounters::busy_cycles]);
  EXPECT_GE(stats.get_number("geometry.gpp.onchip.load_balance"), 1.0);
}

TEST(GppArray, LeastLoadedPolicyKeepsOrderAndEmptyDpmsChangeNothing) {
  std::mt19937 rng(41);
  std::vector<GppPatch> patches = random_stream(rng, 600, 0.2);
  for (size_t i = 64; i < 96; ++i) patches[i].factors.outer[1] = -2.0f;  // batches 4 and 5 empty
  GppArrayConfig cfg;
  cfg.gpp_count = 7;
  cfg.batch_size = 16;
  cfg.policy = GppPolicy::kLeastLoaded;
  cfg.build_primitives = false;
  const GppRunResult r = run_gpp_array(GppDesign::kOnChip, patches, cfg);
  for (const DpmTraceEntry& e : r.dpm_trace) {
    if (e.message.header.count == 0) {
      EXPECT_EQ(e.next_after, e.next_before);
    }
  }
  std::vector<uint32_t> expected;
  for (const GppPatch& p : patches) {
    if (!is_culled(p)) expected.push_back(p.id);
  }
  std::vector<uint32_t> got;
  for (const GppPatchOutput& o : r.output) got.push_back(o.patch_id);
  EXPECT_EQ(got, expected);
  cfg.policy = GppPolicy::kRoundRobin;
  const GppRunResult rr = run_gpp_array(GppDesign::kOnChip, patches, cfg);
  EXPECT_LE(r.timing.load_balance, rr.timing.load_balance);
}

}  // namespace
}  // namespace tessera
