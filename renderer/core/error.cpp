#include "tessera/error.h"

#include <cstdio>
#include <cstdlib>

namespace tessera {

// A failed internal check means Tessera itself is wrong, not its input: there is nothing a
// caller could catch and repair, so stop at once with the location rather than throw.
void check_failed(const char* expr, const char* file, int line, const char* msg) {
  std::fprintf(stderr, "tessera: internal check failed: %s (%s) at %s:%d\n", expr, msg ? msg : "", file, line);
  std::fflush(stderr);
  std::abort();
}

}  // namespace tessera
