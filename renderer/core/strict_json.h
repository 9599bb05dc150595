// Strict reading of JSON documents: every key must be known, every value of the right type
// and within its documented range, and every error names the file and the JSON path
// (`scene.json: meshes[2].resolution: 5000 is out of range [1, 4096]`).
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <initializer_list>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tessera::strict_json {

using Json = nlohmann::json;

// Parses text, rejecting syntax errors (with line and column) and duplicate keys (with their
// path). `file` names the document in errors.
Json parse(const std::string& text, const std::string& file);

// Allowed interval of a number; open ends exclude the bound.
struct Range {
  double lo;
  double hi;
  bool lo_open = false;
  bool hi_open = false;
  bool contains(double v) const;
  std::string describe() const;
};

// Joins a parent path and a key or index: ("meshes", 2) -> "meshes[2]", ("meshes[2]",
// "name") -> "meshes[2].name", ("", "camera") -> "camera".
std::string join(const std::string& path, const std::string& key);
std::string join(const std::string& path, size_t index);

// The location of a value in a document, for error messages.
struct Where {
  const std::string& file;
  std::string path;
  [[noreturn]] void fail(const std::string& message) const;
};

// Conversions of one value; each fails at `where` on a wrong type or range.
std::string as_string(const Json& j, const Where& where);
double as_number(const Json& j, const Where& where, Range range);
int64_t as_integer(const Json& j, const Where& where, int64_t lo, int64_t hi);
bool as_bool(const Json& j, const Where& where);
glm::vec3 as_vec3(const Json& j, const Where& where, Range range);
// A number (all components equal) or an array of N numbers.
glm::vec3 as_vec3_or_scalar(const Json& j, const Where& where, Range range);
glm::vec2 as_vec2_or_scalar(const Json& j, const Where& where, Range range);
glm::ivec2 as_ivec2_or_scalar(const Json& j, const Where& where, int64_t lo, int64_t hi);
glm::ivec3 as_ivec3(const Json& j, const Where& where, int64_t lo, int64_t hi);
// The elements of an array, failing if j is not one.
const std::vector<Json>& as_array(const Json& j, const Where& where);

// Reads one JSON object. Each key a caller asks for is marked known; finish() fails on the
// first key nobody asked for and lists the known ones.
class ObjectReader {
 public:
  ObjectReader(const Json& j, const std::string& file, std::string path);

  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  Where at(const std::string& key) const { return {file_, join(path_, key)}; }
  Where here() const { return {file_, path_}; }

  bool has(const char* key) const;
  const Json* find(const char* key);     // nullptr when absent
  const Json& require(const char* key);  // fails when absent

  std::string string(const char* key);  // required
  std::optional<std::string> optional_string(const char* key);
  float number(const char* key, float fallback, Range range);
  float required_number(const char* key, Range range);
  int integer(const char* key, int fallback, int64_t lo, int64_t hi);
  uint32_t seed(const char* key, uint32_t fallback);
  bool boolean(const char* key, bool fallback);
  glm::vec3 vec3(const char* key, glm::vec3 fallback, Range range);
  glm::vec3 required_vec3(const char* key, Range range);
  glm::vec3 vec3_or_scalar(const char* key, glm::vec3 fallback, Range range);
  glm::vec2 vec2_or_scalar(const char* key, glm::vec2 fallback, Range range);
  glm::ivec2 ivec2_or_scalar(const char* key, glm::ivec2 fallback, int64_t lo, int64_t hi);
  glm::ivec3 ivec3(const char* key, glm::ivec3 fallback, int64_t lo, int64_t hi);

  // Fails on the first key not in `keys` right away, before any value is read (so a typo
  // at the top of a big scene is reported before its meshes are built).
  void allow_only(std::initializer_list<const char*> keys);
  void finish() const;

 private:
  const Json& j_;
  const std::string& file_;
  std::string path_;
  std::vector<std::string> known_;
};

}  // namespace tessera::strict_json
