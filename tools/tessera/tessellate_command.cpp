// `tessera tessellate`: one patch through the fixed-function tessellator, printed as JSON (points
// and primitives) or as a one-line summary. docs/tessellator.md describes the output.
#include "tessellate_command.h"

#include <charconv>
#include <iostream>
#include <sstream>
#include <string_view>
#include <vector>

#include "tessera/error.h"
#include "tessera/tessellator.h"

namespace tessera::cli {

namespace {

// Parses "a,b,c" into floats; `option` names the flag in errors. "nan" and "inf" are accepted
// (a NaN outer level is how a patch is culled).
std::vector<float> parse_levels(const std::string& text, std::string_view option) {
  std::vector<float> out;
  if (text.empty()) return out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view item =
        std::string_view(text).substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    float value = 0.0f;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size())
      throw Error("tessellate: " + std::string(option) + ": '" + std::string(item) +
                  "' is not a number (expected comma-separated levels, e.g. 4,4,4)");
    out.push_back(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string format_float(float v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  TS_CHECK(ec == std::errc(), "float formatting failed");
  return std::string(buf, end);
}

void print_json(std::ostream& os, TessDomain domain, TessSpacing spacing, const ResolvedTessFactors& r,
                const TessellatedPatch& p) {
  const bool lines = p.kind == TessPrimitive::kLines;
  const int outers = domain == TessDomain::kQuad ? 4 : domain == TessDomain::kTriangle ? 3 : 2;
  const int inners = domain == TessDomain::kQuad ? 2 : domain == TessDomain::kTriangle ? 1 : 0;
  os << "{\"points\": " << p.points.size() << ", \"primitives\": " << p.primitive_count() << ",\n";
  os << " \"primitive\": \"" << (lines ? "lines" : "triangles") << "\", \"culled\": " << (p.culled ? "true" : "false")
     << ", \"domain\": \"" << tess_domain_name(domain) << "\", \"spacing\": \"" << tess_spacing_name(spacing)
     << "\",\n";
  os << " \"outer_segments\": [";
  for (int i = 0; i < outers; ++i) os << (i ? ", " : "") << r.outer_segments[size_t(i)];
  os << "], \"inner_segments\": [";
  for (int i = 0; i < inners; ++i) os << (i ? ", " : "") << r.inner_segments[size_t(i)];
  os << "],\n \"domain_points\": [";
  for (size_t i = 0; i < p.points.size(); ++i) {
    const glm::vec3& q = p.points[i];
    os << (i ? ", " : "") << '[' << format_float(q.x) << ", " << format_float(q.y);
    if (domain == TessDomain::kTriangle) os << ", " << format_float(q.z);
    os << ']';
  }
  os << "],\n \"indices\": [";
  for (size_t i = 0; i < p.indices.size(); ++i) os << (i ? ", " : "") << p.indices[i];
  os << "]}\n";
}

}  // namespace

void add_tessellate_command(CLI::App& app, TessellateArgs& args) {
  CLI::App* cmd = app.add_subcommand("tessellate", "Tessellate one patch and print its domain points and primitives");
  cmd->add_option("--domain", args.domain, "Patch domain: tri, quad or isoline");
  cmd->add_option("--spacing", args.spacing, "Edge spacing: equal, fractional_odd or fractional_even (default equal)");
  cmd->add_option("--outer", args.outer,
                  "Outer levels, comma-separated: 3 for tri, 4 for quad, 2 for isoline (lines,segments)");
  cmd->add_option("--inner", args.inner, "Inner levels, comma-separated: 1 for tri, 2 for quad, none for isoline");
  cmd->add_flag("--json", args.json, "Print points, primitives, domain points and indices as JSON");
}

int run_tessellate(const TessellateArgs& args) {
  TessDomain domain{};
  if (args.domain.empty()) throw Error("tessellate: --domain is required (tri, quad or isoline)");
  if (!parse_tess_domain(args.domain, domain))
    throw Error("tessellate: --domain '" + args.domain + "' is not one of tri, quad, isoline");
  TessSpacing spacing{};
  if (!parse_tess_spacing(args.spacing, spacing))
    throw Error("tessellate: --spacing '" + args.spacing + "' is not one of equal, fractional_odd, fractional_even");
  const std::vector<float> outer = parse_levels(args.outer, "--outer");
  const std::vector<float> inner = parse_levels(args.inner, "--inner");
  const size_t want_outer = domain == TessDomain::kQuad ? 4 : domain == TessDomain::kTriangle ? 3 : 2;
  const size_t want_inner = domain == TessDomain::kQuad ? 2 : domain == TessDomain::kTriangle ? 1 : 0;
  const std::string dname(tess_domain_name(domain));
  const auto count_error = [&](std::string_view option, size_t want, size_t got) {
    return Error("tessellate: " + std::string(option) + " takes " + std::to_string(want) +
                 (want == 1 ? " level" : " levels") + " for domain " + dname + ", got " + std::to_string(got));
  };
  if (outer.size() != want_outer) throw count_error("--outer", want_outer, outer.size());
  if (inner.size() != want_inner) throw count_error("--inner", want_inner, inner.size());

  TessFactors factors;
  for (size_t i = 0; i < outer.size(); ++i) factors.outer[i] = outer[i];
  for (size_t i = 0; i < inner.size(); ++i) factors.inner[i] = inner[i];
  const ResolvedTessFactors resolved = resolve_tess_factors(domain, spacing, factors);
  const TessellatedPatch patch = tessellate(domain, spacing, factors);

  std::ostringstream os;
  if (args.json) {
    print_json(os, domain, spacing, resolved, patch);
  } else if (patch.culled) {
    os << "tessellate: " << dname << ", " << tess_spacing_name(spacing)
       << ": patch culled (an outer level is <= 0 or NaN): 0 points, 0 primitives\n";
  } else {
    const bool lines = patch.kind == TessPrimitive::kLines;
    os << "tessellate: " << dname << ", " << tess_spacing_name(spacing) << ": " << patch.points.size() << " points, "
       << patch.primitive_count() << (lines ? " line segments" : " triangles") << " (outer segments";
    for (size_t i = 0; i < want_outer; ++i) os << (i ? "," : " ") << resolved.outer_segments[i];
    if (want_inner) {
      os << "; inner segments";
      for (size_t i = 0; i < want_inner; ++i) os << (i ? "," : " ") << resolved.inner_segments[i];
    }
    os << ")\n";
  }
  std::cout << os.str();
  std::cout.flush();
  return std::cout ? 0 : 1;
}

}  // namespace tessera::cli
