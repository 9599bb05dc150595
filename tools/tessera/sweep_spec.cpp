// The sweep spec (docs/sweep.md): strict reading, expansion into points and jobs, and the plan
// stored in the output folder.
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "files.h"
#include "sweep.h"
#include "tessera/config.h"
#include "tessera/error.h"
#include "tessera/input_file.h"

namespace tessera::cli {

namespace {

namespace fs = std::filesystem;

// Errors name the spec and the key path, as the config reader does.
class SpecReader {
 public:
  explicit SpecReader(std::string what) : what_(std::move(what)) {}
  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw Error(what_ + ": " + key + ": " + msg);
  }
  void only_keys(const ordered_json& j, const std::string& key, std::initializer_list<const char*> allowed) const {
    if (!j.is_object()) fail(key, "expected an object");
    for (auto it = j.begin(); it != j.end(); ++it) {
      bool known = false;
      for (const char* a : allowed) known = known || it.key() == a;
      if (!known) fail(key.empty() ? it.key() : key + "." + it.key(), "unknown key");
    }
  }
  const std::string& what() const { return what_; }

 private:
  std::string what_;
};

// A parameter value's --set text: strings as they are, numbers and booleans as JSON writes them.
std::string setting_text(const SpecReader& r, const std::string& key, const ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean() || v.is_number()) return v.dump();
  r.fail(key, "expected a string, number or boolean");
}

std::string setting_list(const std::vector<SweepSetting>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : " ") + x.key + "=" + x.value;
  return out;
}

std::vector<std::string> as_settings(const std::vector<SweepSetting>& s) {
  std::vector<std::string> out;
  for (const auto& x : s) out.push_back(x.key + "=" + x.value);
  return out;
}

// One setting checked alone: the key exists and the value has its type.
void check_setting(const SpecReader& r, const std::string& where, const SweepSetting& s) {
  Config probe;
  try {
    apply_config_override(probe, s.key, s.value);
  } catch (const Error& e) {
    r.fail(where, e.what());
  }
}

fs::path existing_file(const SpecReader& r, const std::string& key, const ordered_json& v, const fs::path& base) {
  if (!v.is_string() || v.get<std::string>().empty()) r.fail(key, "expected a file name");
  const fs::path p = fs::absolute(base / v.get<std::string>()).lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) r.fail(key, p.string() + ": no such file");
  if (::access(p.c_str(), R_OK) != 0) r.fail(key, p.string() + ": not readable");
  return p;
}

std::vector<std::string> string_list(const SpecReader& r, const std::string& key, const ordered_json& v) {
  if (!v.is_array()) r.fail(key, "expected a list of strings");
  if (v.empty()) r.fail(key, "empty list");
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string() || v[i].get<std::string>().empty())
      r.fail(key + "[" + std::to_string(i) + "]", "expected a non-empty string");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

// The capture inputs run `tessera replay`; a build without that command cannot run them.
bool has_replay_command() {
  int status = -1;
  run_captured({self_executable().string(), "replay", "--help"}, &status);
  return status == 0;
}

void read_inputs(const SpecReader& r, const ordered_json& j, const fs::path& base, SweepPlan& plan) {
  if (!j.is_array()) r.fail("inputs", "expected a list");
  if (j.empty()) r.fail("inputs", "empty list (a sweep needs at least one input)");
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string key = "inputs[" + std::to_string(i) + "]";
    const ordered_json& in = j[i];
    r.only_keys(in, key, {"scene", "cameras", "orbit", "capture", "frames"});
    const bool scene = in.contains("scene"), capture = in.contains("capture");
    if (scene == capture) r.fail(key, "expected exactly one of \"scene\" or \"capture\"");
    if (scene) {
      if (in.contains("frames")) r.fail(key + ".frames", "frames belong to a capture; a scene takes cameras or orbit");
      SweepInput s;
      s.kind = SweepInputKind::scene;
      s.path = existing_file(r, key + ".scene", in["scene"], base);
      s.label = in["scene"].get<std::string>();
      if (in.contains("cameras")) s.cameras = string_list(r, key + ".cameras", in["cameras"]);
      if (in.contains("orbit")) {
        const ordered_json& o = in["orbit"];
        if (!o.is_number_integer() || o.get<int64_t>() < 1 || o.get<int64_t>() > 10000)
          r.fail(key + ".orbit", "expected an integer in [1, 10000]");
        if (!s.cameras.empty()) r.fail(key, "give \"cameras\" or \"orbit\", not both");
        s.orbit = o.get<int>();
      }
      plan.inputs.push_back(s);
    } else {
      if (in.contains("cameras") || in.contains("orbit"))
        r.fail(key, "a capture has its own cameras: give \"frames\" only");
      const fs::path path = existing_file(r, key + ".capture", in["capture"], base);
      if (!in.contains("frames")) r.fail(key + ".frames", "missing (the capture's frames to replay)");
      const ordered_json& f = in["frames"];
      if (!f.is_array()) r.fail(key + ".frames", "expected a list of frame numbers");
      if (f.empty()) r.fail(key + ".frames", "empty list");
      if (!has_replay_command())
        r.fail(key + ".capture", "this tessera has no replay command to run captures (docs/sweep.md)");
      for (size_t k = 0; k < f.size(); ++k) {
        if (!f[k].is_number_integer() || f[k].get<int64_t>() < 0 || f[k].get<int64_t>() > (1 << 30))
          r.fail(key + ".frames[" + std::to_string(k) + "]", "expected a frame number >= 0");
        SweepInput c;
        c.kind = SweepInputKind::capture;
        c.path = path;
        c.label = in["capture"].get<std::string>();
        c.frame = f[k].get<int>();
        plan.inputs.push_back(c);
      }
    }
  }
}

void read_parameters(const SpecReader& r, const ordered_json& j, SweepPlan& plan) {
  r.only_keys(j, "parameters", {"grid", "zip", "points"});
  if (j.size() != 1) r.fail("parameters", "expected exactly one of \"grid\", \"zip\" or \"points\"");
  plan.parameter_shape = j.begin().key();
  const ordered_json& p = j.begin().value();
  const std::string key = "parameters." + plan.parameter_shape;
  auto add_key = [&](const std::string& k) {
    for (const auto& have : plan.parameter_keys)
      if (have == k) return;
    plan.parameter_keys.push_back(k);
  };
  if (plan.parameter_shape == "points") {
    if (!p.is_array()) r.fail(key, "expected a list of objects (config key: value)");
    if (p.empty()) r.fail(key, "empty list");
    for (size_t i = 0; i < p.size(); ++i) {
      const std::string pk = key + "[" + std::to_string(i) + "]";
      if (!p[i].is_object()) r.fail(pk, "expected an object (config key: value)");
      if (p[i].empty()) r.fail(pk, "empty point");
      std::vector<SweepSetting> point;
      for (auto it = p[i].begin(); it != p[i].end(); ++it) {
        SweepSetting s{it.key(), setting_text(r, pk + "." + it.key(), it.value())};
        check_setting(r, pk + "." + it.key(), s);
        add_key(s.key);
        point.push_back(s);
      }
      plan.points.push_back(point);
    }
    return;
  }
  // grid and zip: config key -> list of values.
  if (!p.is_object()) r.fail(key, "expected an object (config key: list of values)");
  if (p.empty()) r.fail(key, "empty (no parameters)");
  std::vector<std::vector<SweepSetting>> axes;
  for (auto it = p.begin(); it != p.end(); ++it) {
    const std::string ak = key + "." + it.key();
    if (!it->is_array()) r.fail(ak, "expected a list of values");
    if (it->empty()) r.fail(ak, "empty list (a parameter needs at least one value)");
    std::vector<SweepSetting> axis;
    for (size_t i = 0; i < it->size(); ++i) {
      SweepSetting s{it.key(), setting_text(r, ak + "[" + std::to_string(i) + "]", (*it)[i])};
      check_setting(r, ak + "[" + std::to_string(i) + "]", s);
      axis.push_back(s);
    }
    add_key(it.key());
    axes.push_back(axis);
  }
  if (plan.parameter_shape == "zip") {
    for (size_t a = 1; a < axes.size(); ++a) {
      if (axes[a].size() != axes[0].size()) {
        r.fail(key + "." + plan.parameter_keys[a], "has " + std::to_string(axes[a].size()) + " values but " +
                                                       plan.parameter_keys[0] + " has " +
                                                       std::to_string(axes[0].size()) + " (zipped lists pair up)");
      }
    }
    for (size_t i = 0; i < axes[0].size(); ++i) {
      std::vector<SweepSetting> point;
      for (const auto& axis : axes) point.push_back(axis[i]);
      plan.points.push_back(point);
    }
    return;
  }
  // Grid: every combination, the first key varying slowest.
  size_t total = 1;
  for (const auto& axis : axes) {
    total *= axis.size();
    if (total > 1000000) r.fail(key, "more than 1000000 points");
  }
  for (size_t n = 0; n < total; ++n) {
    std::vector<SweepSetting> point(axes.size());
    size_t rest = n;
    for (size_t a = axes.size(); a-- > 0;) {
      point[a] = axes[a][rest % axes[a].size()];
      rest /= axes[a].size();
    }
    plan.points.push_back(point);
  }
}

}  // namespace

std::vector<std::string> SweepInput::views() const {
  if (kind == SweepInputKind::capture) return {"frame " + std::to_string(frame)};
  if (!cameras.empty()) return cameras;
  if (orbit > 0) {
    std::vector<std::string> v;
    for (int i = 0; i < orbit; ++i) v.push_back("orbit " + std::to_string(i) + "/" + std::to_string(orbit));
    return v;
  }
  return {"scene camera"};
}

std::string SweepPlan::job_id(size_t job) const {
  char id[48];
  std::snprintf(id, sizeof(id), "p%04zu-i%02zu", job_point(job), job_input(job));
  return id;
}

SweepPlan load_sweep_spec(const fs::path& spec, const fs::path& output_override) {
  const std::string text = read_input_file(spec, kMaxJsonFileBytes, "sweep spec");
  ordered_json j;
  try {
    j = ordered_json::parse(text);
  } catch (const std::exception& e) {
    throw Error(spec.string() + ": invalid JSON: " + e.what());
  }
  const SpecReader r(spec.string());
  r.only_keys(j, "", {"name", "inputs", "config", "parameters", "metrics", "plots", "images", "output"});
  const fs::path base = fs::absolute(spec).parent_path();
  SweepPlan plan;
  if (j.contains("name")) {
    if (!j["name"].is_string()) r.fail("name", "expected a string");
    plan.name = j["name"].get<std::string>();
  } else {
    plan.name = spec.stem().string();
  }
  if (!j.contains("inputs")) r.fail("inputs", "missing (scenes or captures to render)");
  read_inputs(r, j["inputs"], base, plan);
  if (j.contains("config")) {
    const ordered_json& c = j["config"];
    if (!c.is_object()) r.fail("config", "expected an object (config key: value)");
    for (auto it = c.begin(); it != c.end(); ++it) {
      SweepSetting s{it.key(), setting_text(r, "config." + it.key(), it.value())};
      check_setting(r, "config." + it.key(), s);
      plan.base.push_back(s);
    }
  }
  if (!j.contains("parameters")) r.fail("parameters", "missing (grid, zip or points over config keys)");
  read_parameters(r, j["parameters"], plan);
  // Every point with the base settings must make a valid config: a bad combination is found
  // now, not as a failed job an hour in.
  for (size_t i = 0; i < plan.points.size(); ++i) {
    std::vector<SweepSetting> all = plan.base;
    all.insert(all.end(), plan.points[i].begin(), plan.points[i].end());
    Config probe;
    try {
      apply_config_settings(probe, as_settings(all));
    } catch (const Error& e) {
      r.fail("parameters", "point " + std::to_string(i) + " (" + setting_list(plan.points[i]) + "): " + e.what());
    }
  }
  if (!j.contains("metrics")) r.fail("metrics", "missing (stats keys to collect, '*' wildcards)");
  plan.metrics = string_list(r, "metrics", j["metrics"]);
  // Without "plots", the first kDefaultPlotMetrics numeric metrics are plotted (collect_results).
  if (j.contains("plots")) plan.plots = string_list(r, "plots", j["plots"]);
  if (j.contains("images")) {
    if (!j["images"].is_boolean()) r.fail("images", "expected true or false");
    plan.images = j["images"].get<bool>();
  }
  if (!output_override.empty()) {
    plan.output = fs::absolute(output_override).lexically_normal();
  } else {
    if (!j.contains("output")) r.fail("output", "missing (the results folder; or give --output)");
    if (!j["output"].is_string() || j["output"].get<std::string>().empty()) r.fail("output", "expected a folder name");
    plan.output = fs::absolute(base / j["output"].get<std::string>()).lexically_normal();
  }
  // The folder must be writable before anything runs.
  std::error_code ec;
  fs::create_directories(plan.output, ec);
  if (ec || !fs::is_directory(plan.output)) {
    r.fail("output", plan.output.string() + ": cannot create folder" + (ec ? ": " + ec.message() : ""));
  }
  if (::access(plan.output.c_str(), W_OK | X_OK) != 0) r.fail("output", plan.output.string() + ": not writable");
  return plan;
}

ordered_json plan_to_json(const SweepPlan& plan) {
  ordered_json j;
  j["format"] = "tessera-sweep-1";
  j["name"] = plan.name;
  ordered_json inputs = ordered_json::array();
  for (const SweepInput& in : plan.inputs) {
    ordered_json i;
    i["kind"] = in.kind == SweepInputKind::scene ? "scene" : "capture";
    i["path"] = in.path.string();
    i["label"] = in.label;
    if (!in.cameras.empty()) i["cameras"] = in.cameras;
    if (in.orbit) i["orbit"] = in.orbit;
    if (in.kind == SweepInputKind::capture) i["frame"] = in.frame;
    inputs.push_back(i);
  }
  j["inputs"] = inputs;
  auto settings = [](const std::vector<SweepSetting>& s) {
    ordered_json o = ordered_json::object();
    for (const auto& x : s) o[x.key] = x.value;
    return o;
  };
  j["config"] = settings(plan.base);
  j["parameter_shape"] = plan.parameter_shape;
  j["parameter_keys"] = plan.parameter_keys;
  ordered_json points = ordered_json::array();
  for (const auto& p : plan.points) points.push_back(settings(p));
  j["points"] = points;
  j["metrics"] = plan.metrics;
  j["plots"] = plan.plots;
  j["images"] = plan.images;
  j["output"] = plan.output.string();
  return j;
}

SweepPlan plan_from_json(const ordered_json& j) {
  SweepPlan plan;
  plan.name = j.at("name").get<std::string>();
  for (const auto& i : j.at("inputs")) {
    SweepInput in;
    in.kind = i.at("kind") == "scene" ? SweepInputKind::scene : SweepInputKind::capture;
    in.path = i.at("path").get<std::string>();
    in.label = i.at("label").get<std::string>();
    if (i.contains("cameras")) in.cameras = i["cameras"].get<std::vector<std::string>>();
    if (i.contains("orbit")) in.orbit = i["orbit"].get<int>();
    if (i.contains("frame")) in.frame = i["frame"].get<int>();
    plan.inputs.push_back(in);
  }
  auto settings = [](const ordered_json& o) {
    std::vector<SweepSetting> s;
    for (auto it = o.begin(); it != o.end(); ++it) s.push_back({it.key(), it.value().get<std::string>()});
    return s;
  };
  plan.base = settings(j.at("config"));
  plan.parameter_shape = j.at("parameter_shape").get<std::string>();
  plan.parameter_keys = j.at("parameter_keys").get<std::vector<std::string>>();
  for (const auto& p : j.at("points")) plan.points.push_back(settings(p));
  plan.metrics = j.at("metrics").get<std::vector<std::string>>();
  plan.plots = j.at("plots").get<std::vector<std::string>>();
  plan.images = j.at("images").get<bool>();
  plan.output = j.at("output").get<std::string>();
  return plan;
}

SweepPlan load_plan(const fs::path& dir) {
  const fs::path file = dir / "sweep.json";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw Error(dir.string() + ": not a sweep folder (no sweep.json)");
  try {
    SweepPlan plan = plan_from_json(ordered_json::parse(read_input_file(file, kMaxJsonFileBytes, "sweep plan")));
    // The folder may have moved (or be mounted elsewhere on a cluster node): it is where it is read.
    plan.output = fs::absolute(dir).lexically_normal();
    return plan;
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(file.string() + ": not a sweep plan: " + e.what());
  }
}

void prepare_output(const SweepPlan& plan) {
  const fs::path file = plan.output / "sweep.json";
  const std::string text = plan_to_json(plan).dump(2) + "\n";
  std::error_code ec;
  if (fs::exists(file, ec)) {
    const std::string have = read_input_file(file, kMaxJsonFileBytes, "sweep plan");
    if (have != text) {
      throw Error(plan.output.string() +
                  ": holds a different sweep (its sweep.json differs from this spec); give another output folder "
                  "or remove it");
    }
    return;
  }
  for (const char* sub : {"results", "logs", "tmp"}) {
    fs::create_directories(plan.output / sub, ec);
    if (ec) throw Error((plan.output / sub).string() + ": cannot create folder: " + ec.message());
  }
  if (plan.images) fs::create_directories(plan.output / "images", ec);
  write_text_file(file, text);
}

}  // namespace tessera::cli
