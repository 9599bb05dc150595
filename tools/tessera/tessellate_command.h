// `tessera tessellate`: tessellates one patch with the fixed-function tessellator and prints its
// domain points and primitives, so the tessellator can be checked from outside.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace tessera::cli {

// Options as typed: validated by run_tessellate so that bad input is a tessera::Error (status 1).
struct TessellateArgs {
  std::string domain;             // tri, quad or isoline
  std::string spacing = "equal";  // equal, fractional_odd or fractional_even
  std::string outer;              // comma-separated outer levels: 3 (tri), 4 (quad), 2 (isoline)
  std::string inner;              // comma-separated inner levels: 1 (tri), 2 (quad), none (isoline)
  bool json = false;              // full output as JSON instead of a one-line summary
};

void add_tessellate_command(CLI::App& app, TessellateArgs& args);
int run_tessellate(const TessellateArgs& args);

}  // namespace tessera::cli
