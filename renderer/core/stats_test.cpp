#include "tessera/stats.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tessera/error.h"
#include "tessera/memory_ledger.h"

namespace tessera {
namespace {

TEST(Stats, HierarchicalJson) {
  Stats s;
  s.set("raster.triangles.in", uint64_t(10));
  s.add("raster.triangles.in", 5);
  s.set("frame.time_ms.total", 1.5);
  s.set("frame.scene", std::string("a.json"));
  s.set("frame.nan", std::nan(""));
  const auto j = nlohmann::json::parse(s.to_json_text());
  EXPECT_EQ(j["raster"]["triangles"]["in"], 15);
  EXPECT_DOUBLE_EQ(j["frame"]["time_ms"]["total"].get<double>(), 1.5);
  EXPECT_EQ(j["frame"]["scene"], "a.json");
  EXPECT_TRUE(j["frame"]["nan"].is_null());
  EXPECT_EQ(s.get_u64("raster.triangles.in"), 15u);
  EXPECT_THROW(s.get("missing.name"), Error);
  EXPECT_THROW(s.add("frame.scene", 1), Error);
}

TEST(MemoryLedger, MergesAndPublishesPerClient) {
  MemoryLedger a, b;
  a.add_read(MemoryClient::vertex, 100);
  b.add_read(MemoryClient::vertex, 28);
  b.add_write(MemoryClient::color, 64);
  a.merge(b);
  EXPECT_EQ(a.total_read(), 128u);
  EXPECT_EQ(a.total_written(), 64u);
  Stats s;
  a.publish(s);
  EXPECT_EQ(s.get_u64("memory.vertex.read_bytes"), 128u);
  EXPECT_EQ(s.get_u64("memory.color.written_bytes"), 64u);
  EXPECT_EQ(s.get_u64("memory.depth.written_bytes"), 0u);
  EXPECT_EQ(s.get_u64("memory.total.read_bytes"), 128u);
  EXPECT_STREQ(memory_client_name(MemoryClient::parameter), "parameter");
}

}  // namespace
}  // namespace tessera
