// Merging a sweep's results: the tidy CSV (a row per point and input view), gnuplot plots
// (metric vs parameter per input, heat maps over two-parameter grids) and index.md.
#include <fnmatch.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "files.h"
#include "sweep.h"
#include "tessera/error.h"
#include "tessera/input_file.h"

namespace tessera::cli {

namespace {

namespace fs = std::filesystem;

struct Row {
  size_t point = 0, input = 0;
  std::string view, status, error;
  double seconds = 0;
  std::map<std::string, ordered_json> metrics;
};

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string value_text(const ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

bool is_number_text(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(d);
}

// A file name from a key: dots and odd characters become '_'.
std::string slug(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return out;
}

std::string gp_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool have_gnuplot_terminal(const std::string& terminal) {
  int status = -1;
  run_captured({"gnuplot", "-e", "set terminal " + terminal}, &status);
  return status == 0;
}

// The parameter's distinct values in the order points first give them.
std::vector<std::string> distinct_values(const SweepPlan& plan, const std::string& key) {
  std::vector<std::string> out;
  for (const auto& p : plan.points)
    for (const auto& s : p)
      if (s.key == key && std::find(out.begin(), out.end(), s.value) == out.end()) out.push_back(s.value);
  return out;
}

std::string point_value(const SweepPlan& plan, size_t point, const std::string& key) {
  for (const auto& s : plan.points[point])
    if (s.key == key) return s.value;
  return "";
}

struct Plot {
  std::string title, file;
};

}  // namespace

size_t collect_results(const SweepPlan& plan, bool quiet) {
  // Rows, in job order.
  std::vector<Row> rows;
  size_t ok_jobs = 0, failed_jobs = 0, missing_jobs = 0;
  std::vector<std::pair<std::string, std::string>> failures;
  for (size_t job = 0; job < plan.job_count(); ++job) {
    const SweepInput& input = plan.inputs[plan.job_input(job)];
    const std::vector<std::string> views = input.views();
    ordered_json r = read_result(plan, job).value_or(ordered_json());
    const std::string status = r.is_null() ? "missing" : r.at("status").get<std::string>();
    ok_jobs += status == "ok";
    failed_jobs += status == "failed";
    missing_jobs += status == "missing";
    if (status == "failed") failures.emplace_back(plan.job_id(job), r.value("error", std::string()));
    for (size_t v = 0; v < views.size(); ++v) {
      Row row;
      row.point = plan.job_point(job);
      row.input = plan.job_input(job);
      row.view = views[v];
      row.status = status;
      if (!r.is_null()) {
        row.seconds = r.value("seconds", 0.0);
        row.error = r.value("error", std::string());
        if (status == "ok" && v < r.at("rows").size()) {
          const ordered_json& m = r.at("rows")[v].at("metrics");
          for (auto it = m.begin(); it != m.end(); ++it) row.metrics[it.key()] = it.value();
        }
      }
      rows.push_back(row);
    }
  }
  // Metric columns: by pattern in spec order, then by name.
  std::vector<std::string> columns;
  {
    std::set<std::string> all;
    for (const Row& r : rows)
      for (const auto& [k, v] : r.metrics) all.insert(k);
    std::set<std::string> used;
    for (const auto& p : plan.metrics) {
      for (const auto& k : all) {
        if (!used.count(k) && ::fnmatch(p.c_str(), k.c_str(), 0) == 0) {
          columns.push_back(k);
          used.insert(k);
        }
      }
    }
  }
  std::ostringstream csv;
  csv << "point,input,view";
  for (const auto& k : plan.parameter_keys) csv << "," << csv_field(k);
  csv << ",status";
  for (const auto& k : columns) csv << "," << csv_field(k);
  csv << ",seconds,error\n";
  for (const Row& r : rows) {
    csv << r.point << "," << csv_field(plan.inputs[r.input].label) << "," << csv_field(r.view);
    for (const auto& k : plan.parameter_keys) csv << "," << csv_field(point_value(plan, r.point, k));
    csv << "," << r.status;
    for (const auto& k : columns) {
      auto it = r.metrics.find(k);
      csv << "," << (it == r.metrics.end() ? "" : csv_field(value_text(it->second)));
    }
    char secs[32];
    std::snprintf(secs, sizeof(secs), "%.3f", r.seconds);
    csv << "," << (r.status == "missing" ? "" : secs) << "," << csv_field(r.error) << "\n";
  }
  write_text_file(plan.output / "results.csv", csv.str());

  // Plots: numeric metrics matching a plot pattern.
  std::vector<std::string> plot_metrics;
  size_t unplotted = 0;
  for (const auto& k : columns) {
    bool wanted = plan.plots.empty();
    for (const auto& p : plan.plots) wanted = wanted || ::fnmatch(p.c_str(), k.c_str(), 0) == 0;
    bool numeric = false;
    for (const Row& r : rows) {
      auto it = r.metrics.find(k);
      if (it != r.metrics.end()) numeric = numeric || (it->second.is_number() && !it->second.is_boolean());
    }
    if (wanted && numeric && plan.plots.empty() && plot_metrics.size() == kDefaultPlotMetrics) {
      ++unplotted;
      continue;
    }
    if (wanted && numeric) plot_metrics.push_back(k);
  }
  std::vector<std::string> varied;  // parameters with more than one value
  for (const auto& k : plan.parameter_keys)
    if (distinct_values(plan, k).size() > 1) varied.push_back(k);
  // Row series: an input view.
  std::vector<std::pair<size_t, std::string>> series;
  for (const Row& r : rows) {
    const std::pair<size_t, std::string> s{r.input, r.view};
    if (std::find(series.begin(), series.end(), s) == series.end()) series.push_back(s);
  }
  // Plot labels: an input's file name where the names tell the inputs apart, else its label.
  std::vector<std::string> short_labels;
  for (const SweepInput& in : plan.inputs) short_labels.push_back(in.path.filename().string());
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    for (size_t k = 0; k < plan.inputs.size(); ++k) {
      if (short_labels[i] == short_labels[k] && plan.inputs[i].path != plan.inputs[k].path) {
        short_labels[i] = plan.inputs[i].label;
      }
    }
  }
  auto series_name = [&](const std::pair<size_t, std::string>& s) {
    return short_labels[s.first] + (s.second == "scene camera" ? "" : " " + s.second);
  };
  auto metric_of = [&](const Row& r, const std::string& k) -> std::optional<double> {
    auto it = r.metrics.find(k);
    if (it == r.metrics.end() || !it->second.is_number()) return std::nullopt;
    return it->second.get<double>();
  };

  const fs::path plots_dir = plan.output / "plots";
  std::vector<Plot> plots;
  std::string plot_note;
  const bool cairo = !plot_metrics.empty() && !varied.empty() && have_gnuplot_terminal("pngcairo");
  const bool gd = !cairo && !plot_metrics.empty() && !varied.empty() && have_gnuplot_terminal("png");
  if (!plot_metrics.empty() && !varied.empty() && !cairo && !gd) {
    plot_note = "No plots: gnuplot with a png or pngcairo terminal was not found (tools/setup-deps.sh installs it).";
  }
  if (cairo || gd) {
    std::error_code ec;
    fs::remove_all(plots_dir, ec);
    fs::create_directories(plots_dir / "data", ec);
    std::ostringstream gp;
    gp << "set terminal " << (cairo ? "pngcairo noenhanced font 'sans,10'" : "png") << " size 900,560\n"
       << "set termoption noenhanced\n"  // keys such as tessellation.gpps keep their underscores
       << "set datafile separator '\\t'\n";
    for (const std::string& m : plot_metrics) {
      // Metric vs each varied parameter: a line per input view and per combination of the others.
      for (const std::string& p : varied) {
        const std::vector<std::string> xs = distinct_values(plan, p);
        bool numeric_x = true;
        for (const auto& x : xs) numeric_x = numeric_x && is_number_text(x);
        std::map<std::string, std::vector<std::pair<std::string, double>>> lines;  // name -> (x, y)
        std::vector<std::string> line_order;
        for (const Row& r : rows) {
          const auto y = metric_of(r, m);
          if (!y) continue;
          std::string name = series_name({r.input, r.view});
          for (const auto& other : varied)
            if (other != p) name += ", " + other + "=" + point_value(plan, r.point, other);
          if (!lines.count(name)) line_order.push_back(name);
          lines[name].push_back({point_value(plan, r.point, p), *y});
        }
        if (line_order.empty()) continue;
        const std::string base = slug(m) + "__vs__" + slug(p);
        const fs::path data = plots_dir / "data" / (base + ".tsv");
        std::ofstream d(data);
        for (const auto& name : line_order) {
          d << "# " << name << "\n";
          for (const auto& [x, y] : lines[name]) {
            const size_t xi = size_t(std::find(xs.begin(), xs.end(), x) - xs.begin());
            d << (numeric_x ? x : std::to_string(xi)) << "\t" << y << "\t" << x << "\n";
          }
          d << "\n\n";
        }
        gp << "reset session\nset datafile separator '\\t'\nset grid\nset key below left Left reverse\n"
           << "set output " << gp_string((plots_dir / (base + ".png")).string()) << "\n"
           << "set title " << gp_string(m + " vs " + p) << "\nset xlabel " << gp_string(p) << "\nset ylabel "
           << gp_string(m) << "\n";
        if (!numeric_x) {
          gp << "set xtics (";
          for (size_t i = 0; i < xs.size(); ++i) gp << (i ? ", " : "") << gp_string(xs[i]) << " " << i;
          gp << ")\nset xrange [-0.5:" << double(xs.size()) - 0.5 << "]\n";
        } else {
          gp << "set xtics (";
          for (size_t i = 0; i < xs.size(); ++i) gp << (i ? ", " : "") << gp_string(xs[i]) << " " << xs[i];
          gp << ")\nset offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n";
        }
        gp << "plot ";
        for (size_t i = 0; i < line_order.size(); ++i) {
          gp << (i ? ", " : "") << gp_string(data.string()) << " index " << i
             << " using 1:2 with linespoints lw 2 ps 1.2 title " << gp_string(line_order[i]);
        }
        gp << "\n";
        plots.push_back({m + " vs " + p, "plots/" + base + ".png"});
      }
      // Heat map per input view when the points form a two-parameter grid.
      if (plan.parameter_shape == "grid" && varied.size() == 2) {
        const std::vector<std::string> xs = distinct_values(plan, varied[0]), ys = distinct_values(plan, varied[1]);
        for (const auto& s : series) {
          std::vector<std::vector<std::optional<double>>> cells(ys.size(),
                                                                std::vector<std::optional<double>>(xs.size()));
          bool any = false;
          for (const Row& r : rows) {
            if (r.input != s.first || r.view != s.second) continue;
            const auto y = metric_of(r, m);
            if (!y) continue;
            const size_t xi =
                size_t(std::find(xs.begin(), xs.end(), point_value(plan, r.point, varied[0])) - xs.begin());
            const size_t yi =
                size_t(std::find(ys.begin(), ys.end(), point_value(plan, r.point, varied[1])) - ys.begin());
            cells[yi][xi] = *y;
            any = true;
          }
          if (!any) continue;
          const std::string base = slug(m) + "__heat__" + slug(series_name(s));
          const fs::path data = plots_dir / "data" / (base + ".tsv");
          std::ofstream d(data);
          for (size_t yi = 0; yi < ys.size(); ++yi) {
            for (size_t xi = 0; xi < xs.size(); ++xi) {
              d << xi << "\t" << yi << "\t";
              if (cells[yi][xi]) {
                char v[32];
                std::snprintf(v, sizeof(v), "%.6g", *cells[yi][xi]);
                d << *cells[yi][xi] << "\t" << v << "\n";
              } else {
                d << "NaN\t-\n";
              }
            }
            d << "\n";
          }
          gp << "reset session\nset datafile separator '\\t'\n"
             << "set output " << gp_string((plots_dir / (base + ".png")).string()) << "\n"
             << "set title " << gp_string(m + ", " + series_name(s)) << "\nset xlabel " << gp_string(varied[0])
             << "\nset ylabel " << gp_string(varied[1]) << "\nset palette rgbformulae 33,13,10\nset xtics (";
          for (size_t i = 0; i < xs.size(); ++i) gp << (i ? ", " : "") << gp_string(xs[i]) << " " << i;
          gp << ")\nset ytics (";
          for (size_t i = 0; i < ys.size(); ++i) gp << (i ? ", " : "") << gp_string(ys[i]) << " " << i;
          gp << ")\nset xrange [-0.5:" << double(xs.size()) - 0.5 << "]\nset yrange [-0.5:" << double(ys.size()) - 0.5
             << "]\nset cblabel " << gp_string(m) << "\n"
             << "plot " << gp_string(data.string()) << " using 1:2:3 with image notitle, '' using 1:2:4 with labels "
             << "font ',11' notitle\n";
          plots.push_back({m + ", " + series_name(s) + " (heat map)", "plots/" + base + ".png"});
        }
      }
    }
    const fs::path script = plots_dir / "plots.gp";
    write_text_file(script, gp.str());
    const int status = run_logged({"/usr/bin/env", "gnuplot", script.string()}, plots_dir / "gnuplot.log");
    if (status != 0) {
      plot_note = "gnuplot failed (exit status " + std::to_string(status) + "): see plots/gnuplot.log.";
      plots.clear();
    }
  }

  // The index page.
  std::ostringstream md;
  md << "# Sweep " << plan.name << "\n\n" << plan.points.size() << " points (" << plan.parameter_shape << " over";
  for (const auto& k : plan.parameter_keys) md << " `" << k << "`";
  md << ") x " << plan.inputs.size() << " inputs = " << plan.job_count() << " jobs: **" << ok_jobs << " ok, "
     << failed_jobs << " failed, " << missing_jobs << " not run**.\n\n"
     << "Results: [results.csv](results.csv) (a row per point and input view; `seconds` is wall time).\n\n";
  if (!plan.base.empty()) {
    md << "Every point also sets:";
    for (const auto& s : plan.base) md << " `" << s.key << "=" << s.value << "`";
    md << "\n\n";
  }
  if (!failures.empty()) {
    md << "## Failed jobs\n\n| job | error |\n|---|---|\n";
    for (const auto& [id, err] : failures) md << "| " << id << " | " << err << " |\n";
    md << "\n";
  }
  md << "## Plots\n\n";
  if (!plot_note.empty()) md << plot_note << "\n\n";
  if (unplotted) {
    md << "The first " << kDefaultPlotMetrics << " numeric metrics are plotted; " << unplotted
       << " more are in the CSV (name the ones to plot in the spec's \"plots\").\n\n";
  }
  if (plots.empty() && plot_note.empty()) md << "No plots: no numeric metric or no parameter with two values.\n\n";
  for (const Plot& p : plots) md << "### " << p.title << "\n\n![" << p.title << "](" << p.file << ")\n\n";
  write_text_file(plan.output / "index.md", md.str());
  if (!quiet) {
    std::cout << "sweep " << plan.name << ": " << ok_jobs << " ok, " << failed_jobs << " failed, " << missing_jobs
              << " not run; wrote " << (plan.output / "results.csv").string() << ", " << plots.size() << " plots and "
              << (plan.output / "index.md").string() << "\n";
  }
  return ok_jobs;
}

}  // namespace tessera::cli
