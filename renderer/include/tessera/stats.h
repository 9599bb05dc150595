// Per-frame statistics registry with hierarchical dotted names ("raster.triangles.culled").
// Units count in their own typed counter structs in hot loops and publish once per frame;
// nothing here is meant to be touched per pixel.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>

namespace tessera {

class Stats {
 public:
  using Value = std::variant<uint64_t, int64_t, double, std::string>;

  void set(const std::string& name, Value value);
  void add(const std::string& name, uint64_t delta);  // creates the counter at 0
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const Value& get(const std::string& name) const;  // throws tessera::Error if absent
  uint64_t get_u64(const std::string& name) const;
  double get_number(const std::string& name) const;  // any numeric kind as double
  const std::map<std::string, Value>& values() const { return values_; }

  // Nested JSON object: "a.b.c": 1 becomes {"a": {"b": {"c": 1}}}.
  std::string to_json_text(int indent = 2) const;

 private:
  std::map<std::string, Value> values_;
};

}  // namespace tessera
