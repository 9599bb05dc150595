#include "core/strict_json.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_set>

#include "tessera/error.h"

namespace tessera::strict_json {

namespace {

std::string type_name(const Json& j) {
  if (j.is_number_integer()) return "an integer";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_null()) return "null";
  if (j.is_array()) return j.empty() ? "an empty array" : "an array of " + std::to_string(j.size());
  if (j.is_object()) return "an object";
  return "something else";
}

[[noreturn]] void wrong_type(const Json& j, const Where& where, const std::string& expected) {
  where.fail("expected " + expected + ", got " + type_name(j));
}

// nlohmann's what() starts with "[json.exception.parse_error.101] "; the rest ("parse error
// at line 3, column 7: ...") is what a person needs.
std::string without_exception_id(const std::string& what) {
  const size_t close = what.find("] ");
  return (what.rfind("[json.exception.", 0) == 0 && close != std::string::npos) ? what.substr(close + 2) : what;
}

std::string format_number(double v) {
  std::ostringstream os;
  os.precision(10);
  os << v;
  return os.str();
}

// Tracks where the parser is, so a duplicate key can be reported with its path.
struct ParseFrame {
  bool is_array = false;
  size_t index = 0;
  std::string key;
  std::unordered_set<std::string> keys;
};

std::string frames_path(const std::vector<ParseFrame>& frames, size_t count) {
  std::string path;
  for (size_t i = 0; i < count; ++i) {
    path = frames[i].is_array ? join(path, frames[i].index) : join(path, frames[i].key);
  }
  return path;
}

}  // namespace

Json parse(const std::string& text, const std::string& file) {
  std::vector<ParseFrame> frames;
  auto track = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start: frames.push_back({false, 0, {}, {}}); break;
      case Json::parse_event_t::array_start: frames.push_back({true, 0, {}, {}}); break;
      case Json::parse_event_t::key: {
        ParseFrame& f = frames.back();
        std::string key = parsed.get<std::string>();
        if (!f.keys.insert(key).second) {
          const std::string path = join(frames_path(frames, frames.size() - 1), key);
          throw Error(file + ": " + path + ": duplicate key");
        }
        f.key = std::move(key);
        break;
      }
      case Json::parse_event_t::value:
        if (!frames.empty() && frames.back().is_array) ++frames.back().index;
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        frames.pop_back();
        if (!frames.empty() && frames.back().is_array) ++frames.back().index;
        break;
    }
    return true;
  };
  try {
    return Json::parse(text, track);
  } catch (const Json::parse_error& e) {
    throw Error(file + ": invalid JSON: " + without_exception_id(e.what()));
  } catch (const Json::exception& e) {
    throw Error(file + ": invalid JSON: " + without_exception_id(e.what()));
  }
}

bool Range::contains(double v) const {
  if (!std::isfinite(v)) return false;
  const bool above = lo_open ? v > lo : v >= lo;
  const bool below = hi_open ? v < hi : v <= hi;
  return above && below;
}

std::string Range::describe() const {
  return std::string(lo_open ? "(" : "[") + format_number(lo) + ", " + format_number(hi) + (hi_open ? ")" : "]");
}

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

std::string join(const std::string& path, size_t index) { return path + "[" + std::to_string(index) + "]"; }

void Where::fail(const std::string& message) const {
  throw Error(file + ": " + (path.empty() ? std::string("top level") : path) + ": " + message);
}

std::string as_string(const Json& j, const Where& where) {
  if (!j.is_string()) wrong_type(j, where, "a string");
  return j.get<std::string>();
}

double as_number(const Json& j, const Where& where, Range range) {
  if (!j.is_number()) wrong_type(j, where, "a number");
  const double v = j.get<double>();
  if (!std::isfinite(v)) where.fail("must be finite");
  if (!range.contains(v)) where.fail(format_number(v) + " is out of range " + range.describe());
  return v;
}

int64_t as_integer(const Json& j, const Where& where, int64_t lo, int64_t hi) {
  if (!j.is_number_integer()) wrong_type(j, where, "an integer");
  int64_t v = 0;
  if (j.is_number_unsigned()) {
    const uint64_t u = j.get<uint64_t>();
    if (u > uint64_t(std::numeric_limits<int64_t>::max())) {
      where.fail(std::to_string(u) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    v = int64_t(u);
  } else {
    v = j.get<int64_t>();
  }
  if (v < lo || v > hi) {
    where.fail(std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return v;
}

bool as_bool(const Json& j, const Where& where) {
  if (!j.is_boolean()) wrong_type(j, where, "true or false");
  return j.get<bool>();
}

const std::vector<Json>& as_array(const Json& j, const Where& where) {
  if (!j.is_array()) wrong_type(j, where, "an array");
  return j.get_ref<const Json::array_t&>();
}

namespace {

template <int N>
glm::vec<N, float> numbers_array(const Json& j, const Where& where, Range range) {
  if (!j.is_array() || j.size() != size_t(N)) {
    wrong_type(j, where, "an array of " + std::to_string(N) + " numbers");
  }
  glm::vec<N, float> out;
  for (int i = 0; i < N; ++i) {
    out[i] = float(as_number(j[size_t(i)], Where{where.file, join(where.path, size_t(i))}, range));
  }
  return out;
}

// Readers that return int check against at most int's range, so a caller's wider bound can
// never let a value through that the narrowing would then wrap.
int64_t int_range_lo(int64_t lo) { return std::max<int64_t>(lo, std::numeric_limits<int>::min()); }
int64_t int_range_hi(int64_t hi) { return std::min<int64_t>(hi, std::numeric_limits<int>::max()); }

template <int N>
glm::vec<N, int> integers_array(const Json& j, const Where& where, int64_t lo, int64_t hi) {
  if (!j.is_array() || j.size() != size_t(N)) {
    wrong_type(j, where, "an array of " + std::to_string(N) + " integers");
  }
  glm::vec<N, int> out;
  for (int i = 0; i < N; ++i) {
    out[i] = int(
        as_integer(j[size_t(i)], Where{where.file, join(where.path, size_t(i))}, int_range_lo(lo), int_range_hi(hi)));
  }
  return out;
}

}  // namespace

glm::vec3 as_vec3(const Json& j, const Where& where, Range range) { return numbers_array<3>(j, where, range); }

glm::vec3 as_vec3_or_scalar(const Json& j, const Where& where, Range range) {
  if (j.is_number()) return glm::vec3(float(as_number(j, where, range)));
  if (!j.is_array()) wrong_type(j, where, "a number or an array of 3 numbers");
  return numbers_array<3>(j, where, range);
}

glm::vec2 as_vec2_or_scalar(const Json& j, const Where& where, Range range) {
  if (j.is_number()) return glm::vec2(float(as_number(j, where, range)));
  if (!j.is_array()) wrong_type(j, where, "a number or an array of 2 numbers");
  return numbers_array<2>(j, where, range);
}

glm::ivec2 as_ivec2_or_scalar(const Json& j, const Where& where, int64_t lo, int64_t hi) {
  if (j.is_number()) return glm::ivec2(int(as_integer(j, where, int_range_lo(lo), int_range_hi(hi))));
  if (!j.is_array()) wrong_type(j, where, "an integer or an array of 2 integers");
  return integers_array<2>(j, where, lo, hi);
}

glm::ivec3 as_ivec3(const Json& j, const Where& where, int64_t lo, int64_t hi) {
  return integers_array<3>(j, where, lo, hi);
}

ObjectReader::ObjectReader(const Json& j, const std::string& file, std::string path)
    : j_(j), file_(file), path_(std::move(path)) {
  if (!j.is_object()) wrong_type(j, here(), "an object");
}

bool ObjectReader::has(const char* key) const { return j_.contains(key); }

const Json* ObjectReader::find(const char* key) {
  known_.emplace_back(key);
  const auto it = j_.find(key);
  return it == j_.end() ? nullptr : &*it;
}

const Json& ObjectReader::require(const char* key) {
  const Json* j = find(key);
  if (!j) here().fail(std::string("missing required key \"") + key + "\"");
  return *j;
}

std::string ObjectReader::string(const char* key) { return as_string(require(key), at(key)); }

std::optional<std::string> ObjectReader::optional_string(const char* key) {
  const Json* j = find(key);
  if (!j) return std::nullopt;
  return as_string(*j, at(key));
}

float ObjectReader::number(const char* key, float fallback, Range range) {
  const Json* j = find(key);
  return j ? float(as_number(*j, at(key), range)) : fallback;
}

float ObjectReader::required_number(const char* key, Range range) {
  return float(as_number(require(key), at(key), range));
}

int ObjectReader::integer(const char* key, int fallback, int64_t lo, int64_t hi) {
  const Json* j = find(key);
  return j ? int(as_integer(*j, at(key), int_range_lo(lo), int_range_hi(hi))) : fallback;
}

uint32_t ObjectReader::seed(const char* key, uint32_t fallback) {
  const Json* j = find(key);
  return j ? uint32_t(as_integer(*j, at(key), 0, std::numeric_limits<uint32_t>::max())) : fallback;
}

bool ObjectReader::boolean(const char* key, bool fallback) {
  const Json* j = find(key);
  return j ? as_bool(*j, at(key)) : fallback;
}

glm::vec3 ObjectReader::vec3(const char* key, glm::vec3 fallback, Range range) {
  const Json* j = find(key);
  return j ? as_vec3(*j, at(key), range) : fallback;
}

glm::vec3 ObjectReader::required_vec3(const char* key, Range range) { return as_vec3(require(key), at(key), range); }

glm::vec3 ObjectReader::vec3_or_scalar(const char* key, glm::vec3 fallback, Range range) {
  const Json* j = find(key);
  return j ? as_vec3_or_scalar(*j, at(key), range) : fallback;
}

glm::vec2 ObjectReader::vec2_or_scalar(const char* key, glm::vec2 fallback, Range range) {
  const Json* j = find(key);
  return j ? as_vec2_or_scalar(*j, at(key), range) : fallback;
}

glm::ivec2 ObjectReader::ivec2_or_scalar(const char* key, glm::ivec2 fallback, int64_t lo, int64_t hi) {
  const Json* j = find(key);
  return j ? as_ivec2_or_scalar(*j, at(key), lo, hi) : fallback;
}

glm::ivec3 ObjectReader::ivec3(const char* key, glm::ivec3 fallback, int64_t lo, int64_t hi) {
  const Json* j = find(key);
  return j ? as_ivec3(*j, at(key), lo, hi) : fallback;
}

void ObjectReader::allow_only(std::initializer_list<const char*> keys) {
  for (const char* k : keys) known_.emplace_back(k);
  finish();
}

void ObjectReader::finish() const {
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    bool known = false;
    for (const std::string& k : known_) known = known || k == it.key();
    if (!known) {
      std::string expected;
      for (const std::string& k : known_) {
        if (expected.find("\"" + k + "\"") != std::string::npos) continue;
        expected += (expected.empty() ? "" : ", ") + ("\"" + k + "\"");
      }
      at(it.key()).fail("unknown key (expected " + (expected.empty() ? "none" : expected) + ")");
    }
  }
}

}  // namespace tessera::strict_json
