#include "tessera/input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "tessera/error.h"

namespace tessera {
namespace {

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("tessera_input_file_test_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::filesystem::path dir_;
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_F(InputFileTest, ReadsARegularFileWhole) {
  const std::filesystem::path p = dir_ / "scene.json";
  std::ofstream(p, std::ios::binary) << std::string("{\"a\": 1}\n\0tail", 14);
  EXPECT_EQ(read_input_file(p, kMaxJsonFileBytes, "scene"), std::string("{\"a\": 1}\n\0tail", 14));
}

TEST_F(InputFileTest, RefusesDevicesWithoutReadingThem) {
  // /dev/zero never ends: reading it would grow without bound.
  const std::string msg = error_of([] { read_input_file("/dev/zero", kMaxJsonFileBytes, "scene"); });
  EXPECT_NE(msg.find("/dev/zero: cannot read scene file: not a regular file"), std::string::npos) << msg;
}

TEST_F(InputFileTest, RefusesPipes) {
  const std::filesystem::path p = dir_ / "pipe.obj";
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  // Opening a FIFO with no writer would block: the check must come before any open.
  const std::string msg = error_of([&] { read_input_file(p, kMaxObjFileBytes, "OBJ"); });
  EXPECT_NE(msg.find("pipe.obj: cannot read OBJ file: not a regular file"), std::string::npos) << msg;
}

TEST_F(InputFileTest, RefusesFilesOverTheCapBeforeReading) {
  // A sparse file: its size is past the cap without its bytes taking disk space.
  const std::filesystem::path p = dir_ / "huge.json";
  std::ofstream(p, std::ios::binary).put('{');
  std::filesystem::resize_file(p, kMaxJsonFileBytes + 1);
  const std::string msg = error_of([&] { read_input_file(p, kMaxJsonFileBytes, "config"); });
  EXPECT_NE(msg.find("huge.json: 67108865 bytes, too large (config files are limited to 64 MiB)"), std::string::npos)
      << msg;
}

TEST_F(InputFileTest, NamesMissingFilesAndFolders) {
  EXPECT_NE(error_of([&] {
              read_input_file(dir_ / "nope.obj", kMaxObjFileBytes, "OBJ");
            }).find("nope.obj: OBJ file not found"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_input_file(dir_, kMaxObjFileBytes, "OBJ"); }).find(": is a folder, not an OBJ file"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { read_input_file(dir_, kMaxJsonFileBytes, "scene"); }).find(": is a folder, not a scene file"),
      std::string::npos);
}

}  // namespace
}  // namespace tessera
