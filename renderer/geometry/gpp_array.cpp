#include "geometry/gpp_array.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <string>

#include "tessera/error.h"
#include "tessera/stats.h"

namespace tessera {

namespace {

// The on-chip patch control store: what a PatchHandle points at. Every TEFE and TEBE reads it.
class PatchControlStore {
 public:
  explicit PatchControlStore(std::span<const GppPatch> patches) : patches_(patches) {}
  const GppPatch& at(PatchHandle h) const {
    TS_CHECK(h.index < patches_.size(), "patch handle outside the control store");
    return patches_[h.index];
  }
  ResolvedTessFactors resolve(PatchHandle h) const {
    const GppPatch& p = at(h);
    return resolve_tess_factors(p.domain, p.spacing, p.factors);
  }
  size_t size() const { return patches_.size(); }

 private:
  std::span<const GppPatch> patches_;
};

// The patch-distribution state every TEBE keeps (and the off-chip readback uses): Next-TEBE,
// and for the least-loaded policy the estimated work assigned to each TEBE so far. Identical
// inputs give identical state in every copy.
class PatchAssigner {
 public:
  PatchAssigner(GppPolicy policy, int gpp_count, uint8_t next_reset, const GppCostRates& rates)
      : policy_(policy), n_(gpp_count), next_(next_reset), rates_(rates), load_(size_t(gpp_count), 0.0) {}

  // Owner TEBE of each handle, in order; advances the state. An empty list changes nothing.
  void assign(std::span<const PatchHandle> handles, const PatchControlStore& store, std::vector<uint8_t>& owners) {
    owners.clear();
    const int count = int(handles.size());
    if (count == 0) return;
    if (policy_ == GppPolicy::kRoundRobin) {
      for (int j = 0; j < count; ++j) owners.push_back(uint8_t((next_ + j) % n_));
      next_ = uint8_t((next_ + count % n_) % n_);  // quotient dropped, remainder added
      return;
    }
    for (PatchHandle h : handles) {
      const GppPatch& p = store.at(h);
      const double estimate = 1.0 / rates_.tebe_patches_per_clock +
                              double(tess_counts(p.domain, store.resolve(h)).points) / rates_.domain_points_per_clock +
                              double(p.extra_cycles);
      int best = next_;
      for (int k = 1; k < n_; ++k) {
        const int g = (next_ + k) % n_;
        if (load_[size_t(g)] < load_[size_t(best)]) best = g;
      }
      load_[size_t(best)] += estimate;
      owners.push_back(uint8_t(best));
      next_ = uint8_t((best + 1) % n_);
    }
  }

  uint8_t next() const { return next_; }

 private:
  GppPolicy policy_;
  int n_;
  uint8_t next_;
  GppCostRates rates_;
  std::vector<double> load_;
};

// Tessellation front end of one GPP: its batch input queue, the patch cull, the DPM generator
// with its buffer and the output enable its own TEBE drives.
class Tefe {
 public:
  Tefe(uint8_t id, int buffer_depth) : id_(id), buffer_depth_(buffer_depth) {}

  void receive_batch(std::vector<PatchHandle> batch) { input_.push_back(std::move(batch)); }
  bool has_batch() const { return !input_.empty(); }

  // Takes the next batch up to its end-of-batch marker: culls each handle from its control data
  // and puts the survivors into the DPM buffer in arrival (application) order.
  void cull_next_batch(const PatchControlStore& store, GppCounters& c) {
    TS_CHECK(has_batch(), "TEFE has no batch to cull");
    TS_CHECK(buffer_.empty(), "DPM buffer not drained before the next batch");
    for (PatchHandle h : input_.front()) {
      ++c[GppCounters::patches_received];
      if (store.resolve(h).culled) {
        ++c[GppCounters::patches_culled];
        continue;
      }
      TS_CHECK(int(buffer_.size()) < buffer_depth_, "DPM buffer overflow");
      buffer_.push_back(h);
    }
    input_.pop_front();
  }

  // End of batch, output enable asserted: builds the DPM from the buffer and empties it.
  DpmMessage build_dpm(GppCounters& c) {
    TS_CHECK(output_enable_, "DPM generator transmits only while its output enable is asserted");
    DpmMessage m;
    m.header.count = uint16_t(buffer_.size());
    m.header.sender = id_;
    m.handles = std::move(buffer_);
    buffer_.clear();
    ++c[GppCounters::dpm_sent];
    c[GppCounters::trb_bytes] += m.wire_bytes();
    return m;
  }

  // Hands the survivors of the buffered batch on without a DPM (baseline designs).
  std::vector<PatchHandle> drain_buffer() {
    std::vector<PatchHandle> out = std::move(buffer_);
    buffer_.clear();
    return out;
  }

  void set_output_enable(bool on) { output_enable_ = on; }
  bool output_enable() const { return output_enable_; }

 private:
  uint8_t id_;
  int buffer_depth_;
  std::deque<std::vector<PatchHandle>> input_;
  std::vector<PatchHandle> buffer_;  // the DPM buffer
  bool output_enable_ = false;
};

// Tessellation back end of one GPP: the DPM processor with its Next-TEBE state, the queue of
// patches assigned to it, the tessellator, and the queue of results toward the raster side.
class Tebe {
 public:
  Tebe(uint8_t id, int gpp_count, PatchAssigner assigner) : id_(id), n_(gpp_count), assigner_(std::move(assigner)) {}

  // DPM processor. Takes the handles of the DPM that fall to this TEBE (round-robin: handle j
  // goes to the TEBE Next-TEBE + j, cyclic), advances Next-TEBE past the last handle (unchanged
  // for an empty DPM) and returns true when this GPP follows the sender, i.e. asserts output
  // enable to its own TEFE. `owners` receives the owner of every handle, as this TEBE sees it.
  bool process_dpm(const DpmMessage& m, const PatchControlStore& store, std::vector<uint8_t>& owners, GppCounters& c) {
    ++c[GppCounters::dpm_processed];
    TS_CHECK(size_t(m.header.count) == m.handles.size(), "DPM size field disagrees with its handle list");
    TS_CHECK(m.header.sender < n_, "DPM from an unknown GPP");
    assigner_.assign(m.handles, store, owners);
    for (size_t j = 0; j < owners.size(); ++j)
      if (owners[j] == id_) accept(m.handles[j]);
    return id_ == (m.header.sender + 1) % n_;
  }

  void accept(PatchHandle h) { assigned_.push_back(h); }
  void end_batch(uint32_t patches) { batch_sizes_.push_back(patches); }

  // Tessellates every assigned patch in arrival order.
  void tessellate_assigned(const PatchControlStore& store, bool build, GppCounters& c) {
    for (PatchHandle h : assigned_) {
      const GppPatch& p = store.at(h);
      const ResolvedTessFactors r = store.resolve(h);
      TS_CHECK(!r.culled, "a culled patch reached a TEBE");
      GppPatchOutput o;
      o.patch_id = p.id;
      o.gpp = id_;
      if (build) {
        o.tessellated = tessellate(p.domain, p.spacing, p.factors);
        o.counts = TessCounts{o.tessellated.points.size(), o.tessellated.primitive_count()};
      } else {
        o.counts = tess_counts(p.domain, r);
      }
      ++c[GppCounters::patches_tessellated];
      c[GppCounters::domain_points] += o.counts.points;
      c[GppCounters::primitives] += o.counts.primitives;
      c[GppCounters::patch_cost_cycles] += p.extra_cycles;
      results_.push_back(std::move(o));
    }
  }

  uint8_t next_tebe() const { return assigner_.next(); }
  bool has_result() const { return !results_.empty(); }
  GppPatchOutput pop_result() {
    TS_CHECK(has_result(), "output token reached a TEBE with no result");
    GppPatchOutput o = std::move(results_.front());
    results_.pop_front();
    return o;
  }
  uint32_t pop_batch_size() {
    TS_CHECK(!batch_sizes_.empty(), "output token reached a GPP with no batch");
    const uint32_t s = batch_sizes_.front();
    batch_sizes_.pop_front();
    return s;
  }
  std::vector<uint32_t> assigned_ids(const PatchControlStore& store) const {
    std::vector<uint32_t> ids;
    ids.reserve(assigned_.size());
    for (PatchHandle h : assigned_) ids.push_back(store.at(h).id);
    return ids;
  }

 private:
  uint8_t id_;
  int n_;
  PatchAssigner assigner_;  // Next-TEBE and the policy state
  std::vector<PatchHandle> assigned_;
  std::deque<uint32_t> batch_sizes_;  // no-redistribution design: survivors per own batch
  std::deque<GppPatchOutput> results_;
};

void validate(const GppArrayConfig& cfg) {
  if (cfg.gpp_count < 1 || cfg.gpp_count > kMaxGpps)
    throw Error("GPP array: gpp_count " + std::to_string(cfg.gpp_count) + " outside 1..16");
  if (cfg.batch_size < 1) throw Error("GPP array: batch_size must be at least 1");
  if (cfg.dpm_buffer_depth < cfg.batch_size || cfg.dpm_buffer_depth > 65535)
    throw Error("GPP array: dpm_buffer_depth " + std::to_string(cfg.dpm_buffer_depth) +
                " must hold a whole batch (batch_size " + std::to_string(cfg.batch_size) + ") and fit 16 bits");
  if (cfg.reset_gpp < 0 || cfg.reset_gpp >= cfg.gpp_count)
    throw Error("GPP array: reset_gpp " + std::to_string(cfg.reset_gpp) + " is not a GPP ID");
}

// The state of one run: the units, the counters and the functional result.
struct GppArray {
  GppArray(std::span<const GppPatch> patches, const GppArrayConfig& cfg, GppDesign design)
      : cfg(cfg), n(cfg.gpp_count), store(patches) {
    result.design = design;
    result.per_gpp.resize(size_t(n));
    for (int g = 0; g < n; ++g) {
      tefes.emplace_back(uint8_t(g), cfg.dpm_buffer_depth);
      tebes.emplace_back(uint8_t(g), n, make_assigner());
    }
    // Batches in application order, handed to the GPPs round-robin from the reset GPP.
    const size_t bs = size_t(cfg.batch_size);
    for (size_t first = 0, b = 0; first < patches.size(); first += bs, ++b) {
      std::vector<PatchHandle> batch;
      for (size_t i = first; i < std::min(patches.size(), first + bs); ++i) batch.push_back(PatchHandle{uint32_t(i)});
      tefes[gpp_of_batch(b)].receive_batch(std::move(batch));
      ++batches;
    }
    result.totals[GppDesignCounters::patches] = patches.size();
    result.totals[GppDesignCounters::batches] = batches;
  }

  PatchAssigner make_assigner() const { return PatchAssigner(cfg.policy, n, uint8_t(cfg.reset_gpp), cfg.rates); }
  size_t gpp_of_batch(size_t b) const { return (size_t(cfg.reset_gpp) + b) % size_t(n); }
  GppCounters& counters(size_t g) { return result.per_gpp[g]; }

  // The spec: each batch is culled by its TEFE and broadcast as a DPM when the TEFE holds
  // output enable; every TEBE takes its share and the token moves to the sender's follower.
  void run_on_chip() {
    tefes[size_t(cfg.reset_gpp)].set_output_enable(true);
    for (size_t b = 0; b < batches; ++b) {
      size_t sender = tefes.size();
      for (size_t g = 0; g < tefes.size(); ++g) {
        if (!tefes[g].output_enable()) continue;
        TS_CHECK(sender == tefes.size(), "two TEFEs hold output enable");
        sender = g;
      }
      TS_CHECK(sender < tefes.size(), "no TEFE holds output enable");
      TS_CHECK(sender == gpp_of_batch(b), "output enable is not with the GPP holding the next batch");
      Tefe& tefe = tefes[sender];
      tefe.cull_next_batch(store, counters(sender));
      DpmMessage m = tefe.build_dpm(counters(sender));
      // TRB broadcast: every TEBE, the sender's own included, receives and processes the DPM.
      ++result.totals[GppDesignCounters::dpm_messages];
      if (m.header.count == 0) ++result.totals[GppDesignCounters::dpm_empty];
      result.totals[GppDesignCounters::trb_bytes] += m.wire_bytes();
      DpmTraceEntry trace;
      trace.next_before = tebes[0].next_tebe();
      std::vector<size_t> enable;
      std::vector<uint8_t> owners, first_owners;
      for (size_t g = 0; g < tebes.size(); ++g) {
        if (tebes[g].process_dpm(m, store, owners, counters(g))) enable.push_back(g);
        if (g == 0) first_owners = owners;
        TS_CHECK(owners == first_owners, "TEBEs disagree on the owners of a DPM's patches");
      }
      owner_sequence.insert(owner_sequence.end(), first_owners.begin(), first_owners.end());
      // Output complete: the sender's DPM processor deasserts its output enable; the follower's
      // asserts its own.
      tefe.set_output_enable(false);
      TS_CHECK(enable.size() == 1, "exactly one DPM processor follows the sender");
      tefes[enable[0]].set_output_enable(true);
      for (const Tebe& t : tebes) TS_CHECK(t.next_tebe() == tebes[0].next_tebe(), "TEBEs disagree on Next-TEBE");
      trace.next_after = tebes[0].next_tebe();
      trace.message = std::move(m);
      result.dpm_trace.push_back(std::move(trace));
    }
    for (const Tefe& t : tefes) TS_CHECK(!t.has_batch(), "a batch was never transmitted");
    tessellate_all();
    emit_per_patch();
  }

  // Baseline: each GPP culls and tessellates its own batches; output passes batch by batch.
  void run_no_redistribution() {
    for (size_t b = 0; b < batches; ++b) {
      const size_t g = gpp_of_batch(b);
      tefes[g].cull_next_batch(store, counters(g));
      std::vector<PatchHandle> survivors = tefes[g].drain_buffer();
      for (PatchHandle h : survivors) tebes[g].accept(h);
      tebes[g].end_batch(uint32_t(survivors.size()));
    }
    tessellate_all();
    for (size_t b = 0; b < batches; ++b) {
      Tebe& t = tebes[gpp_of_batch(b)];
      for (uint32_t i = t.pop_batch_size(); i > 0; --i) result.output.push_back(t.pop_result());
    }
  }

  // Baseline: each TEFE culls its batches and writes the survivors' records to memory; the
  // records are read back by the TEBEs round-robin, one patch each, in application order.
  void run_off_chip() {
    const uint64_t record = sizeof(OffChipPatchRecord) + cfg.patch_payload_bytes;
    std::vector<PatchHandle> queue;  // the record queue in memory, application order
    for (size_t b = 0; b < batches; ++b) {
      const size_t g = gpp_of_batch(b);
      tefes[g].cull_next_batch(store, counters(g));
      for (PatchHandle h : tefes[g].drain_buffer()) {
        result.ledger.add_write(MemoryClient::tessellation, record);
        counters(g)[GppCounters::offchip_bytes_written] += record;
        queue.push_back(h);
      }
    }
    PatchAssigner readback = make_assigner();
    readback.assign(queue, store, owner_sequence);
    for (size_t k = 0; k < queue.size(); ++k) {
      const size_t g = owner_sequence[k];
      result.ledger.add_read(MemoryClient::tessellation, record);
      counters(g)[GppCounters::offchip_bytes_read] += record;
      tebes[g].accept(queue[k]);
    }
    result.totals[GppDesignCounters::offchip_bytes_written] = result.ledger.total_written();
    result.totals[GppDesignCounters::offchip_bytes_read] = result.ledger.total_read();
    tessellate_all();
    emit_per_patch();
  }

  void tessellate_all() {
    for (size_t g = 0; g < tebes.size(); ++g) {
      tebes[g].tessellate_assigned(store, cfg.build_primitives, counters(g));
      result.tebe_patches.push_back(tebes[g].assigned_ids(store));
    }
  }

  // Raster side. Round-robin: the output token starts at the reset GPP and moves to the next
  // GPP after each patch, matching the per-patch assignment. Least-loaded: the token goes to
  // the owner of the next patch, which every TEBE knows from the assignment it computed.
  void emit_per_patch() {
    uint64_t remaining = 0;
    for (const GppCounters& c : result.per_gpp) remaining += c[GppCounters::patches_tessellated];
    TS_CHECK(remaining == owner_sequence.size(), "every assigned patch is tessellated");
    if (cfg.policy == GppPolicy::kRoundRobin) {
      for (size_t token = size_t(cfg.reset_gpp); remaining > 0; --remaining, token = (token + 1) % size_t(n))
        result.output.push_back(tebes[token].pop_result());
    } else {
      for (uint8_t owner : owner_sequence) result.output.push_back(tebes[owner].pop_result());
    }
    for (const Tebe& t : tebes) TS_CHECK(!t.has_result(), "a tessellated patch was never output");
  }

  void charge() {
    result.timing = model_gpp_timing(result.per_gpp, result.totals, cfg.rates);
    const GppTiming& t = result.timing;
    for (size_t g = 0; g < size_t(n); ++g) {
      counters(g)[GppCounters::tefe_cycles] = uint64_t(std::ceil(t.tefe_cycles[g]));
      counters(g)[GppCounters::busy_cycles] = uint64_t(std::ceil(t.busy_cycles[g]));
      counters(g)[GppCounters::idle_cycles] = uint64_t(std::floor(t.idle_cycles[g]));
    }
    result.totals[GppDesignCounters::trb_cycles] = uint64_t(std::ceil(t.trb_cycles));
    result.totals[GppDesignCounters::offchip_cycles] = uint64_t(std::ceil(t.offchip_cycles));
    result.totals[GppDesignCounters::makespan_cycles] = uint64_t(std::ceil(t.makespan_cycles));
  }

  const GppArrayConfig& cfg;
  int n;
  PatchControlStore store;
  std::vector<Tefe> tefes;
  std::vector<Tebe> tebes;
  size_t batches = 0;
  std::vector<uint8_t> owner_sequence;  // owner TEBE of every surviving patch, application order
  GppRunResult result;
};

}  // namespace

std::string_view gpp_design_name(GppDesign design) {
  switch (design) {
    case GppDesign::kOnChip: return "onchip";
    case GppDesign::kNoRedistribution: return "noredist";
    case GppDesign::kOffChip: return "offchip";
  }
  return "unknown";
}

std::string_view gpp_policy_name(GppPolicy policy) {
  switch (policy) {
    case GppPolicy::kRoundRobin: return "roundrobin";
    case GppPolicy::kLeastLoaded: return "leastloaded";
  }
  return "unknown";
}

GppRunResult run_gpp_array(GppDesign design, std::span<const GppPatch> patches, const GppArrayConfig& config) {
  validate(config);
  GppArray array(patches, config, design);
  switch (design) {
    case GppDesign::kOnChip: array.run_on_chip(); break;
    case GppDesign::kNoRedistribution: array.run_no_redistribution(); break;
    case GppDesign::kOffChip: array.run_off_chip(); break;
  }
  array.charge();
  return std::move(array.result);
}

std::vector<uint8_t> primitive_gpps(std::span<const GppPatchOutput> output) {
  std::vector<uint8_t> gpps;
  for (const GppPatchOutput& o : output) gpps.insert(gpps.end(), size_t(o.counts.primitives), o.gpp);
  return gpps;
}

void GppRunResult::publish(Stats& stats) const {
  const std::string prefix = "geometry.gpp." + std::string(gpp_design_name(design)) + ".";
  for (size_t i = 0; i < totals.v.size(); ++i) stats.set(prefix + GppDesignCounters::kKeys[i], totals.v[i]);
  GppCounters sum;
  for (size_t g = 0; g < per_gpp.size(); ++g) {
    sum.merge(per_gpp[g]);
    for (size_t i = 0; i < per_gpp[g].v.size(); ++i)
      stats.set(prefix + "gpp" + std::to_string(g) + "." + GppCounters::kKeys[i], per_gpp[g].v[i]);
  }
  for (size_t i = 0; i < sum.v.size(); ++i) stats.set(prefix + "all." + GppCounters::kKeys[i], sum.v[i]);
  stats.set(prefix + "gpps", uint64_t(per_gpp.size()));
  stats.set(prefix + "load_balance", timing.load_balance);
  stats.set(prefix + "domain_points_per_cycle", timing.domain_points_per_cycle);
}

}  // namespace tessera
