// Parameter checks shared by the procedural generators: a bad parameter is bad input, so it
// raises tessera::Error naming the generator and the parameter.
#pragma once

#include <cmath>
#include <sstream>
#include <string>

#include "tessera/error.h"

namespace tessera::generator_checks {

template <typename T>
void require_range(const char* generator, const char* parameter, T value, T lo, T hi) {
  if (!(value >= lo && value <= hi)) {  // also rejects NaN
    std::ostringstream os;
    os << generator << ": " << parameter << " = " << value << " is out of range [" << lo << ", " << hi << "]";
    throw Error(os.str());
  }
}

inline void require_positive(const char* generator, const char* parameter, float value, float hi = 1e6f) {
  if (!(value > 0.0f && value <= hi)) {
    std::ostringstream os;
    os << generator << ": " << parameter << " = " << value << " must be in (0, " << hi << "]";
    throw Error(os.str());
  }
}

inline void require_color(const char* generator, const char* parameter, float r, float g, float b) {
  for (float c : {r, g, b}) {
    if (!(c >= 0.0f && c <= 1.0f)) {
      std::ostringstream os;
      os << generator << ": " << parameter << " components must be in [0, 1]";
      throw Error(os.str());
    }
  }
}

}  // namespace tessera::generator_checks
