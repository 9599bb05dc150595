#include "core/strict_json.h"

#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <limits>

#include <nlohmann/json.hpp>

#include "tessera/error.h"

namespace tessera::strict_json {
namespace {

// Runs f, which must throw tessera::Error whose message contains every one of `parts`.
std::string expect_error(const std::function<void()>& f, std::initializer_list<std::string> parts) {
  try {
    f();
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const std::string& p : parts)
      EXPECT_NE(msg.find(p), std::string::npos) << "message lacks \"" << p << "\": " << msg;
    return msg;
  }
  ADD_FAILURE() << "expected tessera::Error, nothing was thrown";
  return {};
}

const std::string kFile = "doc.json";

TEST(StrictJson, JoinBuildsPaths) {
  EXPECT_EQ(join("", "camera"), "camera");
  EXPECT_EQ(join("meshes", 2), "meshes[2]");
  EXPECT_EQ(join("meshes[2]", "name"), "meshes[2].name");
}

TEST(StrictJson, SyntaxErrorsCarryLineAndColumn) {
  const std::string msg =
      expect_error([] { parse("{\n  \"a\": 1,\n  \"b\" 2\n}", kFile); }, {"doc.json: invalid JSON", "line 3, column"});
  EXPECT_EQ(msg.find("[json.exception"), std::string::npos) << msg;
  expect_error([] { parse("", kFile); }, {"doc.json: invalid JSON"});
  expect_error([] { parse("{\"a\": NaN}", kFile); }, {"doc.json: invalid JSON", "line 1"});
}

TEST(StrictJson, DuplicateKeysAreRejectedWithTheirPath) {
  expect_error([] { parse(R"({"a": 1, "a": 2})", kFile); }, {"doc.json: a: duplicate key"});
  expect_error([] { parse(R"({"list": [{"x": 1}, 5, [], {"y": 1, "y": 2}]})", kFile); },
               {"doc.json: list[3].y: duplicate key"});
  expect_error([] { parse(R"({"o": {"p": {"q": [0, {"r": 1, "r": 1}]}}})", kFile); },
               {"doc.json: o.p.q[1].r: duplicate key"});
  // The same key in sibling objects is fine.
  EXPECT_NO_THROW(parse(R"([{"a": 1}, {"a": 2}, {"b": {"a": 3}}])", kFile));
}

TEST(StrictJson, NumbersAreTypeAndRangeChecked) {
  const Json j = parse(R"({"f": 1.5, "i": 7, "s": "x", "neg": -3, "big": 1e300})", kFile);
  ObjectReader r(j, kFile, "obj");
  EXPECT_FLOAT_EQ(r.number("f", 0.0f, {0.0, 2.0}), 1.5f);
  EXPECT_FLOAT_EQ(r.number("i", 0.0f, {0.0, 10.0}), 7.0f);  // integers are numbers
  EXPECT_FLOAT_EQ(r.number("absent", 4.0f, {0.0, 10.0}), 4.0f);
  EXPECT_EQ(r.integer("i", 0, 0, 10), 7);
  expect_error([&] { r.integer("f", 0, 0, 10); }, {"doc.json: obj.f: expected an integer, got a number"});
  expect_error([&] { r.number("s", 0.0f, {0.0, 1.0}); }, {"obj.s: expected a number, got a string"});
  expect_error([&] { r.number("f", 0.0f, {0.0, 1.0}); }, {"obj.f: 1.5 is out of range [0, 1]"});
  expect_error([&] { r.number("f", 0.0f, {1.5, 2.0, true}); }, {"out of range (1.5, 2]"});
  expect_error([&] { r.integer("neg", 0, 0, 10); }, {"obj.neg: -3 is out of range [0, 10]"});
  expect_error([&] { r.seed("neg", 0); }, {"obj.neg"});
  expect_error([&] { r.number("big", 0.0f, {0.0, 1e6}); }, {"obj.big: 1e+300 is out of range"});
  // Numbers beyond double range are a parse error (JSON has no infinity).
  expect_error([] { parse(R"({"x": 1e999})", kFile); }, {"doc.json: invalid JSON", "1e999"});
}

TEST(StrictJson, IntegersBeyondIntAreRefusedNotWrapped) {
  // 4294967297 = 2^32 + 1 would narrow to 1: the range check must see the 64-bit value even
  // when a caller's bound is wider than int.
  const Json j = parse(R"({"wide": 4294967297, "low": -4294967288, "v": [1, 4294967297, 1]})", kFile);
  ObjectReader r(j, kFile, "o");
  constexpr int64_t kWide = std::numeric_limits<int64_t>::max();
  expect_error([&] { r.integer("wide", 0, 1, kWide); }, {"o.wide: 4294967297 is out of range [1, 2147483647]"});
  expect_error([&] { r.integer("low", 0, -kWide, kWide); }, {"o.low: -4294967288 is out of range"});
  expect_error([&] { r.ivec3("v", glm::ivec3(0), 1, kWide); }, {"o.v[1]: 4294967297 is out of range"});
  expect_error([&] { r.ivec2_or_scalar("wide", glm::ivec2(0), 1, kWide); }, {"o.wide: 4294967297 is out of range"});
}

TEST(StrictJson, VectorsAndScalars) {
  const Json j = parse(R"({"v": [1, 2, 3], "s": 2, "short": [1, 2], "bad": [1, "x", 3]})", kFile);
  ObjectReader r(j, kFile, "o");
  EXPECT_EQ(r.vec3("v", glm::vec3(0.0f), {0.0, 5.0}), glm::vec3(1, 2, 3));
  EXPECT_EQ(r.vec3_or_scalar("s", glm::vec3(0.0f), {0.0, 5.0}), glm::vec3(2.0f));
  EXPECT_EQ(r.ivec2_or_scalar("s", glm::ivec2(0), 0, 5), glm::ivec2(2));
  expect_error(
      [&] {
        r.vec3("short", glm::vec3(0.0f), {0.0, 5.0});
      },
      {"o.short: expected an array of 3 numbers, got an array of 2"});
  expect_error([&] { r.vec3("bad", glm::vec3(0.0f), {0.0, 5.0}); }, {"o.bad[1]: expected a number"});
  expect_error([&] { r.vec3("v", glm::vec3(0.0f), {0.0, 2.0}); }, {"o.v[2]: 3 is out of range"});
}

TEST(StrictJson, UnknownKeysAreReportedWithTheKnownOnes) {
  const Json j = parse(R"({"name": "a", "colour": [1, 0, 0]})", kFile);
  ObjectReader r(j, kFile, "materials[4]");
  r.string("name");
  r.vec3("base_color", glm::vec3(0.0f), {0.0, 1.0});
  expect_error([&] { r.finish(); }, {"doc.json: materials[4].colour: unknown key (expected \"name\", \"base_color\")"});
}

TEST(StrictJson, AllowOnlyRejectsUnknownKeysBeforeAnyValueIsRead) {
  const Json j = parse(R"({"a": 1, "b": 2, "typo": 3})", kFile);
  ObjectReader r(j, kFile, "");
  expect_error([&] { r.allow_only({"a", "b", "c"}); }, {"doc.json: typo: unknown key (expected \"a\", \"b\", \"c\")"});
}

TEST(StrictJson, MissingRequiredKeyAndWrongContainerTypes) {
  const Json j = parse(R"({"list": {}, "obj": []})", kFile);
  ObjectReader r(j, kFile, "");
  expect_error([&] { r.string("name"); }, {"doc.json: top level: missing required key \"name\""});
  expect_error([&] { as_array(j["list"], r.at("list")); }, {"list: expected an array, got an object"});
  expect_error([&] { ObjectReader(j["obj"], kFile, "obj"); }, {"obj: expected an object, got an empty array"});
}

}  // namespace
}  // namespace tessera::strict_json
