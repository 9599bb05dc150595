// Errors and checks shared by every unit.
#pragma once

#include <stdexcept>
#include <string>

namespace tessera {

// Raised for bad input (files, parameters). The message names the input and what is wrong.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

[[noreturn]] void check_failed(const char* expr, const char* file, int line, const char* msg);

}  // namespace tessera

// Internal invariant checks. TS_CHECK is always on; TS_DCHECK only in debug builds.
// clang-format off
#define TS_CHECK(cond, msg)                                                  \
  do {                                                                       \
    if (!(cond)) ::tessera::check_failed(#cond, __FILE__, __LINE__, (msg));  \
  } while (0)
// clang-format on
#ifdef NDEBUG
#define TS_DCHECK(cond, msg) \
  do {                       \
  } while (0)
#else
#define TS_DCHECK(cond, msg) TS_CHECK(cond, msg)
#endif
